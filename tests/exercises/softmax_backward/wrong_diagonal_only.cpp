// A wrong answer: only the diagonal of softmax's Jacobian, y (1 - y) g, as for a sigmoid.
// expect: 1 | ^softmax_backward: wrong answer: dx .*hint: that is only the diagonal of softmax's Jacobian
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    Tensor dx(y.shape());
    for (int64_t i = 0; i < y.numel(); ++i) dx[i] = g[i] * y[i] * (1.0f - y[i]);
    return dx;
}
