// A wrong answer: the positions counted from 1 (rows 2 and 102, 12 and 112). RoPE scores them exactly
// as rows 3 and 103, so only the probe of rope_rotation.hpp shows it.
// expect: 1 | ^rope_rotation: wrong answer: the rows of query3_key103 | hint: yours dots row 2 with row 102: positions count from 0 | !\[ok\] the rows of
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
    // Position 3 taken as the third row: row 2.
    return {dot(2, 2), dot(2, 102), dot(12, 12), dot(12, 112)};
}
