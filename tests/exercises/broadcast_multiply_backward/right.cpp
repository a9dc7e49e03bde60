// A right answer to the broadcast-multiply exercise: da = g * b on every row, db summed over the rows.
// expect: 0 | ^broadcast_multiply_backward: solved$ | \[ok\] your backward as an op, gradchecked
#include "lessons/exercises/broadcast_multiply_backward.hpp"

using wai::Tensor;

MultiplyGrads multiply_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    const int64_t D = b.numel(), rows = a.numel() / D;
    MultiplyGrads grads{Tensor(a.shape()), Tensor(b.shape())};
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < D; ++j) {
            grads.da[r * D + j] = g[r * D + j] * b[j];
            grads.db[j] += g[r * D + j] * a[r * D + j];
        }
    return grads;
}
