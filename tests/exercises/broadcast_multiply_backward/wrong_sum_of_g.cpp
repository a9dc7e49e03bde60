// A wrong answer: db is the sum of g over the rows, as for an added bias, without a.
// expect: 1 | ^broadcast_multiply_backward: wrong answer: db, .*first differs at \(0\) | hint: db sums g alone
#include "lessons/exercises/broadcast_multiply_backward.hpp"

using wai::Tensor;

MultiplyGrads multiply_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    const int64_t D = b.numel(), rows = a.numel() / D;
    MultiplyGrads grads{Tensor(a.shape()), Tensor(b.shape())};
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < D; ++j) {
            grads.da[r * D + j] = g[r * D + j] * b[j];
            grads.db[j] += g[r * D + j];
        }
    return grads;
}
