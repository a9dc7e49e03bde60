// Exercise: the backward of the softmax every attention score goes through (lesson 01). "The
// query-key scores are permuted the same way in both directions, the softmax is taken row by row,
// and the weighted sums follow" (Where Am I?, "Attention can't see order"). Row by row, forward:
// y[j] = exp(x[j]) / sum over j' of exp(x[j']). Each y[j] depends on every x of its row, so
// d y[j] / d x[i] = y[j] (delta_ij - y[i]), and the chain rule over the row gives
//   dx[i] = y[i] * (g[i] - sum over j of g[j] y[j])
// Under the causal mask (the chapter's model, a query sees only the keys up to itself) a masked
// y[j] is exactly 0: it adds nothing to the sum, and its dx comes out 0 by itself.
// Write your code in the one marked place below, then `make exercise EXERCISE=softmax_backward`
// (or `make exercises` for the board). Once it is right, the checker trains one step of the
// chapter's model with your function as the backward of every softmax in it.
// What you have: wai::Tensor (tensor/tensor.hpp). y.shape().last() is Tk, the length of a row, and
// y.numel() / Tk the number of rows however many leading axes y has; y[r * Tk + j] is row r, entry
// j (row-major); Tensor dx(y.shape()) is zeros of y's shape.
// Leaves out the answer: wai::softmax's backward (autograd/softmax.cpp, tensor/elementwise.cpp), if stuck.
#include "lessons/exercises/softmax_backward.hpp"

using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// For each row: first the one number sum over j of g[j] * y[j], then every dx[i] of the row.
Tensor softmax_backward(const Tensor& y, const Tensor& g) {
    exercise::not_written_yet(y, g);  // delete this line, and compute dx
}

// ==== END OF YOUR CODE ==========================================================================
