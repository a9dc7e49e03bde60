// A right answer to the softmax-backward exercise: per row, the sum of g * y, then y * (g - sum).
// expect: 0 | ^softmax_backward: solved$ | \[ok\] each row of your dx for a plain softmax .* sums to 0 | \[ok\] each row of your dx for a causal softmax .* sums to 0 | \[ok\] your backward as an op for a causal softmax | the 2 softmax nodes | \[ok\] one training step
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r) {
        float total = 0.0f;
        for (int64_t j = 0; j < Tk; ++j) total += g[r * Tk + j] * y[r * Tk + j];
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = y[r * Tk + i] * (g[r * Tk + i] - total);
    }
    return dx;
}
