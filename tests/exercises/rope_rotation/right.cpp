// A right answer to the RoPE rotation exercise, as a learner would fill in the scaffold.
// The checker shows the course's four dot products from this rotation, each pair equal, and the
// learner's own four from exercise_scores beside the pair checks.
// expect: 0 | ^rope_rotation: solved$ | \[ok\] apply_rope | q.k with the query at +3, the key at +3 \(distance +0\): +13\.8921$ | q.k with the query at +13, the key at +13 \(distance +0\): +13\.8921 +the same distance as the line above, and the same score, as it should be | q.k with the query at +3, the key at 103 \(distance 100\): +4\.2715$ | q.k with the query at +13, the key at 113 \(distance 100\): +4\.2715 +the same distance as the line above, and the same score, as it should be | \[ok\] your pair query3_key103 and query13_key113 are equal.*\(yours: 4\.2715[0-9]* and 4\.2715[0-9]*\) | !and is not | !some wrong rotations | \[ok\] the rows of query3_key103: row 3 with row 103
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
    return {dot(3, 3), dot(3, 103), dot(13, 13), dot(13, 113)};
}
