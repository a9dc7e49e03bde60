// A wrong answer: the sum of g * y taken down each column (entry j of every row), not along the row.
// expect: 1 | ^softmax_backward: wrong answer: dx for a plain softmax .*first differs at \(0, 0, 0\) | hint: the sum runs down a column
#include <vector>

#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    std::vector<float> column_totals(Tk, 0.0f);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < Tk; ++j) column_totals[j] += g[r * Tk + j] * y[r * Tk + j];
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = y[r * Tk + i] * (g[r * Tk + i] - column_totals[i]);
    return dx;
}
