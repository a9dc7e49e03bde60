// Exercise: the backward of a product whose second operand is repeated over rows (lesson 00, the
// engine under every lesson). y = a * b with a (..., D) and b (D): row r of y is a's row r times b,
// b the same on every row, as a LayerNorm weight is over (B, T, D). The chapter's own example of
// the repetition is an add, "positions = torch.arange(10).unsqueeze(0) # (1, T) -> broadcasts over
// B" (LLM Mastery 23, "Worked example: learned absolute embeddings"): one table row serves every
// sequence of the batch, so its gradient is what all of them hand back, summed. So here: b is used
// once per row, and each use hands it a share.
// Write your code in the one marked place below, then `make exercise EXERCISE=broadcast_multiply_backward`
// (or `make exercises` for the board).
// What you have: wai::Tensor (tensor/tensor.hpp). a.shape().last() is D and a.numel() / D the
// number of rows, however many leading axes a has; a[r * D + j] is row r, column j (row-major);
// Tensor t(a.shape()) and Tensor t(b.shape()) are zeros of those shapes.
// Leaves out the answer: wai::multiply's backward (autograd/arithmetic.cpp), if you are stuck.
#include "lessons/exercises/broadcast_multiply_backward.hpp"

using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// y[r, j] = a[r, j] * b[j], so d y[r, j] / d a[r, j] = b[j] and d y[r, j] / d b[j] = a[r, j]:
//   da[r, j] = g[r, j] * b[j]
//   db[j]    = the sum over every row r of g[r, j] * a[r, j]     (b was used on every row)
MultiplyGrads multiply_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    exercise::not_written_yet(a, b, g);  // delete this line, and compute da and db
}

// ==== END OF YOUR CODE ==========================================================================
