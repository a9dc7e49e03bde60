// A wrong answer: g1 read from the odd column and g2 from the even one.
// expect: 1 | ^rope_backward: wrong answer: .*first differs at \(0, 0\) | hint: g1 and g2 are swapped
#include <cmath>

#include "lessons/exercises/rope_backward.hpp"

using wai::Tensor;

Tensor rope_backward(const Tensor& grad, const Tensor& angles) {
    const int64_t T = grad.size(0), H = grad.size(1);
    Tensor dx(grad.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            const int64_t first = 2 * i, second = 2 * i + 1;
            const float g1 = grad(t, second), g2 = grad(t, first);
            const float cos = std::cos(angles(t, i)), sin = std::sin(angles(t, i));
            dx(t, first) = g1 * cos + g2 * sin;
            dx(t, second) = -g1 * sin + g2 * cos;
        }
    return dx;
}
