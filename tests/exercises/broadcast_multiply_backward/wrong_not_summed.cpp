// A wrong answer: db keeps one share per row, in a's shape, instead of their sum over the rows.
// expect: 1 | ^broadcast_multiply_backward: wrong answer: db, .*your tensor has shape \(2, 3, 4\), expected \(4\) | hint: db is g \* a row by row | \[ok\] da for a
#include "lessons/exercises/broadcast_multiply_backward.hpp"

using wai::Tensor;

MultiplyGrads multiply_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    const int64_t D = b.numel(), rows = a.numel() / D;
    MultiplyGrads grads{Tensor(a.shape()), Tensor(a.shape())};
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < D; ++j) {
            grads.da[r * D + j] = g[r * D + j] * b[j];
            grads.db[r * D + j] = g[r * D + j] * a[r * D + j];
        }
    return grads;
}
