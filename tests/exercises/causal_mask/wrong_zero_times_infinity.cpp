// A wrong answer: (n > m) * -infinity, which is NaN wherever n <= m (0 times infinity).
// expect: 1 | ^causal_mask: wrong answer: every entry .*is -?nan | hint: NaN is what 0 times infinity gives
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    Tensor mask(Shape{T, T});
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            mask(m, n) = static_cast<float>(n > m) * -std::numeric_limits<float>::infinity();
    return mask;
}
