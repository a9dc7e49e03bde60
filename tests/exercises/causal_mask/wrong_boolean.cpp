// A wrong answer: np.tri's 0/1 pattern (1 where a key is seen) used as the mask to add.
// expect: 1 | ^causal_mask: wrong answer: every entry .*is 1 | hint: a mask of 1 and 0
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n <= m) mask(m, n) = 1.0f;
    return mask;
}
