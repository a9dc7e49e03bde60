// A wrong answer: y * (g - s) multiplied out with the y left off the sum, y * g - s. The checker
// names the slip, and no row of dx sums to 0.
// expect: 1 | ^softmax_backward: wrong answer: dx for a plain softmax .*first differs at \(0, 0, 0\).*hint: the factor y is missing on the sum | \[WRONG\] each row of your dx for a plain softmax of \(2, 3, 5\) sums to 0, as softmax's backward must: 6 of 6 rows do not | hint: no row sums to 0: the sum over i of y\[i\] \* \(g\[i\] - s\) is 0 only when every term has its factor y, on s as well as on g
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r) {
        float total = 0.0f;
        for (int64_t j = 0; j < Tk; ++j) total += g[r * Tk + j] * y[r * Tk + j];
        for (int64_t i = 0; i < Tk; ++i) dx[r * Tk + i] = y[r * Tk + i] * g[r * Tk + i] - total;
    }
    return dx;
}
