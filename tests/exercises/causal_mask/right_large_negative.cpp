// A right answer with a large negative number in place of -infinity, as many implementations write it.
// expect: 0 | ^causal_mask: solved$ | \[ok\] every hidden key gets a weight of exactly 0
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n > m) mask(m, n) = -1e9f;
    return mask;
}
