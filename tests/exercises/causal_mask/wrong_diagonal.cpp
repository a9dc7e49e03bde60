// A wrong answer: the diagonal hidden as well (n >= m), so a token cannot see itself and token 0 sees nothing.
// expect: 1 | ^causal_mask: wrong answer: which keys .*first differs at \(0, 0\): expected 1, got 0 | hint: the diagonal is hidden too
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n >= m) mask(m, n) = -std::numeric_limits<float>::infinity();
    return mask;
}
