// A wrong answer: the transpose, hiding the keys before each query (n < m) instead of those after it.
// expect: 1 | ^causal_mask: wrong answer: which keys .*first differs at \(0, 1\): expected 0, got 1 | hint: the transpose
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n < m) mask(m, n) = -std::numeric_limits<float>::infinity();
    return mask;
}
