// A wrong answer: each operand's share multiplied by itself instead of by the other operand.
// expect: 1 | ^broadcast_multiply_backward: wrong answer: da for a .*first differs at \(0, 0, 0\) | hint: da is g \* a: da and db are swapped | hint: db sums g \* b
#include "lessons/exercises/broadcast_multiply_backward.hpp"

using wai::Tensor;

MultiplyGrads multiply_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    const int64_t D = b.numel(), rows = a.numel() / D;
    MultiplyGrads grads{Tensor(a.shape()), Tensor(b.shape())};
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < D; ++j) {
            grads.da[r * D + j] = g[r * D + j] * a[r * D + j];
            grads.db[j] += g[r * D + j] * b[j];
        }
    return grads;
}
