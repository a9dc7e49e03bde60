// Exercise: the causal mask (lesson 01; Where Am I?, "Attention can't see order"; LLM Mastery 23,
// "The claim"). The chapter's numpy hides the keys after each query this way:
//   s = np.where(np.tri(T, dtype=bool), s, -np.inf)
// np.tri(T) is 1 on and below the diagonal: query m sees keys n <= m. Written as a mask to add to the
// scores, that is 0 where a key is seen and -infinity where it is hidden; softmax turns exp(-infinity)
// into a weight of exactly 0. The checker puts your mask into an attention over five random tokens
// and asks the chapter's questions of it: does a token's output still depend on later tokens? Is
// attention still permutation-equivariant, as it is with no mask at all?
// Write your code in the one marked place below, then `make exercise EXERCISE=causal_mask` (or
// `make exercises` for the board).
// What you have: wai::Tensor (tensor/tensor.hpp): Tensor mask(Shape{T, T}) is a (T, T) block of
// zeros, and mask(m, n) is the number at row m (the query), column n (the key); an index past the end
// stops with the shape and the index. -infinity is -std::numeric_limits<float>::infinity().
// Leaves out the answer: lesson 01 is the worked example, with the library's causal softmax.
#include <limits>

#include "lessons/exercises/causal_mask.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// T -> (T, T): 0 where key n may be seen by query m (n <= m), -infinity where it may not (n > m).
Tensor causal_mask(int64_t T) {
    exercise::not_written_yet(T);  // delete this line, and build the mask
}

// ==== END OF YOUR CODE ==========================================================================
