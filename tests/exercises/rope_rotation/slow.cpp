// A right answer that is slow: the rotation of lesson 06, with a 5 ms wait in every call (a learner's
// rotation can be slow in many ways). The checker calls it a handful of times and says it is solved;
// make exercise-train's run with it stops at its own time limit and says so (selftest.sh).
// expect: 0 | ^rope_rotation: solved$
#include <chrono>
#include <cmath>
#include <thread>

#include "lessons/exercises/rope_rotation.hpp"

using wai::Shape;
using wai::Tensor;

Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
