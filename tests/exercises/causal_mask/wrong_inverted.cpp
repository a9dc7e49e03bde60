// A wrong answer: the mask the wrong way round, -infinity on and below the diagonal. At length 1
// that is also what hiding the diagonal gives, and that line names both.
// expect: 1 | ^causal_mask: wrong answer: which keys .*hint: the mask is the wrong way round | hint: the one token does not see itself.*or the mask is the wrong way round | !hint: the diagonal is hidden too
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n <= m) mask(m, n) = -std::numeric_limits<float>::infinity();
    return mask;
}
