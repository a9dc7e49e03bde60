// A wrong answer: a mask of zeros, which hides nothing (a missing causal mask).
// expect: 1 | ^causal_mask: wrong answer: which keys .*first differs at \(0, 1\): expected 0, got 1 | hint: nothing is hidden: a missing causal mask
#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

Tensor causal_mask(int64_t T) {
    return Tensor(Shape{T, T});  // (T, T) zeros
}
