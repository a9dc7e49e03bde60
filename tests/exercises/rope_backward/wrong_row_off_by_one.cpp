// A wrong answer: row t turned back by the angles of row t - 1 (row 0 by its own).
// expect: 1 | ^rope_backward: wrong answer: .*first differs at \(1, 0\) | hint: row t is turned by the angles of row t - 1
#include <cmath>

#include "lessons/exercises/rope_backward.hpp"

using wai::Tensor;

Tensor rope_backward(const Tensor& grad, const Tensor& angles) {
    const int64_t T = grad.size(0), H = grad.size(1);
    Tensor dx(grad.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            const int64_t first = 2 * i, second = 2 * i + 1;
            const float g1 = grad(t, first), g2 = grad(t, second);
            const float angle = angles(t > 0 ? t - 1 : 0, i);
            const float cos = std::cos(angle), sin = std::sin(angle);
            dx(t, first) = g1 * cos + g2 * sin;
            dx(t, second) = -g1 * sin + g2 * cos;
        }
    return dx;
}
