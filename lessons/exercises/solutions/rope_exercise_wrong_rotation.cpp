// A wrong answer to the RoPE exercise, for `make exercises-selftest`: rotated_even adds the sin term
// instead of subtracting it, a typical slip; the checker must name position 1, dimension 0 as the first
// wrong number. Otherwise the same as rope_exercise_right.cpp.
// Leaves out the teaching (lesson 06 has it).
#include "lessons/exercises/rope_exercise.hpp"

using wai::Shape;
using wai::Tensor;

// x (T, H), angles (T, H/2) -> (T, H)
Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    const int64_t T = x.size(0), H = x.size(1);
    Tensor out(x.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            const float x1 = x[t * H + 2 * i], x2 = x[t * H + 2 * i + 1];
            const float cos = std::cos(angles[t * (H / 2) + i]), sin = std::sin(angles[t * (H / 2) + i]);
            out[t * H + 2 * i] = x1 * cos + x2 * sin;  // the slip: should be - x2 * sin
            out[t * H + 2 * i + 1] = x1 * sin + x2 * cos;
        }
    return out;
}

RopeScores exercise_scores(const Tensor& vector) {
    const int64_t T = 114, H = vector.numel();
    Tensor sequence(Shape{T, H});  // (T, H): the vector at every position
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < H; ++c) sequence[t * H + c] = vector[c];
    const Tensor rotated = apply_rope(sequence, rope_angles(H, T));
    auto dot = [&](int64_t m, int64_t n) {
        double total = 0.0;
        for (int64_t c = 0; c < H; ++c) total += rotated[m * H + c] * rotated[n * H + c];
        return total;
    };
    RopeScores scores;
    scores.query3_key3 = dot(3, 3);
    scores.query3_key103 = dot(3, 103);
    scores.query13_key13 = dot(13, 13);
    scores.query13_key113 = dot(13, 113);
    return scores;
}
