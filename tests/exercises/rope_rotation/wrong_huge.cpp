// A wrong answer whose rotation is right but 1e30 times too large: every number finite, yet a score
// q.k overflows to infinity and the softmax gives NaN. The checker names the first place it differs;
// training with it (make exercise-train) stops at the first step with a line saying that the library's
// run, with the same settings, stayed finite, so the cause is the learner's code, not the learning rate.
// expect: 1 | ^rope_rotation: wrong answer: apply_rope
#include <cmath>

#include "lessons/exercises/rope_rotation.hpp"

using wai::Shape;
using wai::Tensor;

Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    const int64_t T = x.size(0), H = x.size(1);
    Tensor out(x.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            const float x1 = x(t, 2 * i), x2 = x(t, 2 * i + 1);
            const float cos = std::cos(angles(t, i)), sin = std::sin(angles(t, i));
            out(t, 2 * i) = x1 * cos - x2 * sin;
            out(t, 2 * i + 1) = x1 * sin + x2 * cos;
        }
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < H; ++c) out(t, c) *= 1e30f;  // finite, and far too large
    return out;
}

RopeScores exercise_scores(const Tensor& vector) {
    const int64_t T = 114, H = vector.numel();
    Tensor sequence(Shape{T, H});  // (T, H): the vector at every position
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < H; ++c) sequence(t, c) = vector[c];
    const Tensor rotated = apply_rope(sequence, rope_angles(H, T));
    auto dot = [&](int64_t m, int64_t n) {
        double total = 0.0;
        for (int64_t c = 0; c < H; ++c) total += rotated(m, c) * rotated(n, c);
        return total;
    };
    return {dot(3, 3), dot(3, 103), dot(13, 13), dot(13, 113)};
}
