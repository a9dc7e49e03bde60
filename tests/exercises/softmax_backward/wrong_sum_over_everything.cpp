// A wrong answer: one sum of g * y over the whole tensor, not one per row.
// expect: 1 | ^softmax_backward: wrong answer: dx .*hint: the sum of g \* y runs over the whole tensor
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    float total = 0.0f;
    for (int64_t j = 0; j < y.numel(); ++j) total += g[j] * y[j];
    Tensor dx(y.shape());
    for (int64_t i = 0; i < y.numel(); ++i) dx[i] = y[i] * (g[i] - total);
    return dx;
}
