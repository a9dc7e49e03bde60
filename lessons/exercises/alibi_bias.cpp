// Exercise: ALiBi's penalty (lesson 04; Where Am I?, "Penalizing distance: ALiBi"):
//   "For a query at position m and a key at position n <= m, it subtracts a penalty in proportion to
//    their distance from the attention score, s - a (m - n), with a different slope a for each head:
//    a geometric sequence, 1/2, 1/4, ..., 1/256 for 8 heads, so that some heads look nearby and
//    others far."
// Two functions: the slopes, 2^(-8k/NH) for heads k = 1..NH, and the penalty itself, one (T, T)
// matrix per head, which the model adds to its scores just before the causal softmax.
// Write your code in the one marked place below, then `make exercise EXERCISE=alibi_bias` (or
// `make exercises` for the board). Once solved, `make exercise-train EXERCISE=alibi_bias` trains the
// chapter's model (one head, the chapter's slope 1/2: the scheme alibi:0.5) with your penalty.
// What you have: wai::Tensor (tensor/tensor.hpp): Tensor bias(Shape{NH, T, T}) is an (NH, T, T)
// block of zeros, and bias(h, m, n) is the number for head h, query m, key n (an index past the end
// stops with the shape and the index); std::pow from <cmath>.
// Leaves out the answer: lesson 04 uses the library's ALiBi, if you are stuck.
#include <cmath>
#include <vector>

#include "lessons/exercises/alibi_bias.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// NH -> NH slopes: index k - 1 holds 2^(-8k/NH), for k = 1..NH.
std::vector<double> alibi_slopes(int64_t heads) {
    exercise::not_written_yet(heads);  // delete this line, and compute the slopes
}

// slopes (NH), T -> (NH, T, T): [h, m, n] = -slopes[h] * (m - n) for n <= m, 0 for n > m.
Tensor alibi_bias(const std::vector<double>& slopes, int64_t T) {
    exercise::not_written_yet(slopes, T);  // delete this line, and build the penalty
}

// ==== END OF YOUR CODE ==========================================================================
