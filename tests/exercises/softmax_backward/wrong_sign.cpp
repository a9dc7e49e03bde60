// A wrong answer: the difference the wrong way round, so every sign is flipped.
// expect: 1 | ^softmax_backward: wrong answer: dx for a plain softmax .*first differs at \(0, 0, 0\) | hint: every sign is flipped
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r) {
        float total = 0.0f;
        for (int64_t j = 0; j < Tk; ++j) total += g[r * Tk + j] * y[r * Tk + j];
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = y[r * Tk + i] * (total - g[r * Tk + i]);
    }
    return dx;
}
