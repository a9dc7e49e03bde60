// A wrong answer: y * (g - sum) without the factor y, so masked entries get a gradient too.
// expect: 1 | ^softmax_backward: wrong answer: dx for a plain softmax .*first differs at | hint: the factor y is missing
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r) {
        float total = 0.0f;
        for (int64_t j = 0; j < Tk; ++j) total += g[r * Tk + j] * y[r * Tk + j];
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = g[r * Tk + i] - total;
    }
    return dx;
}
