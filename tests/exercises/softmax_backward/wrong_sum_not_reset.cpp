// A wrong answer: the sum of g * y started once, before the loop over rows, so each row's sum also
// holds every row before it. The first row is right; the checker names the slip, and every later
// row of dx fails to sum to 0.
// expect: 1 | ^softmax_backward: wrong answer: dx for a plain softmax .*first differs at \(0, 1, 0\).*hint: the sum of g \* y is not started again at 0 for each row | \[WRONG\] each row of your dx for a plain softmax of \(2, 3, 5\) sums to 0, as softmax's backward must: 5 of 6 rows do not; the first, the row from \(0, 1, 0\) | hint: the first row sums to 0 and every later one does not: something carries over from one row to the next, such as a sum of g \* y started once
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    Tensor dx(y.shape());
    float total = 0.0f;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < Tk; ++j) total += g[r * Tk + j] * y[r * Tk + j];
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = y[r * Tk + i] * (g[r * Tk + i] - total);
    }
    return dx;
}
