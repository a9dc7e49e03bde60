// A right answer to the causal mask exercise: -infinity above the diagonal, 0 on and below it.
// expect: 0 | ^causal_mask: solved$ | \[ok\] with your mask, changing a later token | \[ok\] with your mask it is not
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            if (n > m) mask(m, n) = -std::numeric_limits<float>::infinity();
    return mask;
}
