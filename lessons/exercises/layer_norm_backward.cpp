// Exercise: the backward of LayerNorm (lesson 08 trains the model it stands in). Each block of the
// chapter's model normalises on the way in: "q, k, v = self.qkv(self.n1(x)).chunk(3, -1)" and
// "return x + self.mlp(self.n2(x))" (Where Am I?, "A test: two tasks, four times the length").
// Row by row, with D numbers in a row:
//   mean = sum(x) / D,  var = sum((x - mean)^2) / D,  rstd = 1 / sqrt(var + eps)
//   x_hat = (x - mean) * rstd,  y = weight * x_hat + bias
// Every x_hat of a row depends on every x of it (through mean and var), which is where the two
// row means in dx come from. With dx_hat = g * weight:
//   dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))
//   dweight = the sum over the rows of g * x_hat;  dbias = the sum over the rows of g
// Write your code in the one marked place below, then `make exercise EXERCISE=layer_norm_backward`
// (or `make exercises` for the board). Once it is right, the checker trains one step of the
// chapter's model with your function as the backward of its every LayerNorm.
// What you have: wai::Tensor (tensor/tensor.hpp). x.shape().last() is D and x.numel() / D the
// number of rows however many leading axes x has; x[r * D + j] is row r, entry j (row-major);
// Tensor t(x.shape()) and Tensor t(weight.shape()) are zeros of those shapes. std::sqrt is in <cmath>.
// Leaves out the answer: wai::layer_norm's backward (autograd/layer_norm.cpp, tensor/elementwise.cpp).
#include <cmath>

#include "lessons/exercises/layer_norm_backward.hpp"

using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// For each row: its mean and rstd (recompute them: the forward's are not kept for you), x_hat and
// dx_hat, the two row means, then the row's dx; dweight and dbias gather every row's share.
LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight, float eps, const Tensor& g) {
    exercise::not_written_yet(x, weight, eps, g);  // delete this line, and compute the three shares
}

// ==== END OF YOUR CODE ==========================================================================
