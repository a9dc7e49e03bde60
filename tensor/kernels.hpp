// Element-wise and last-axis kernels on whole tensors: the arithmetic the autograd ops are made of.
// "Broadcast" here means one thing only: b's shape is the trailing part of a's, and b repeats over
// a's leading dimensions (a bias over (B, T, D), a table over (B, T, D), a penalty over (B, NH, T, T)).
// Leaves out general NumPy broadcasting, and the operations' derivatives (autograd/ has those).
#pragma once
#include <vector>

#include "tensor/tensor.hpp"

namespace wai {

// Throws unless b's shape is a's trailing shape (equal shapes included).
void check_broadcast(const char* op, const Shape& a, const Shape& b);

Tensor add(const Tensor& a, const Tensor& b);       // a + b, b broadcast
Tensor subtract(const Tensor& a, const Tensor& b);  // a - b, b broadcast
Tensor multiply(const Tensor& a, const Tensor& b);  // a * b, b broadcast
Tensor scale(const Tensor& a, float factor);        // factor * a

// out (rows, width) = row on every row: a bias laid down before a product adds onto it.
void repeat_row(float* out, int64_t rows, const float* row, int64_t width);

void add_scaled_inplace(Tensor& dst, const Tensor& src, float alpha = 1.0f);  // dst += alpha * src
void multiply_inplace(Tensor& dst, const Tensor& src);                         // dst *= src, same shape
// dst (trailing shape of src) += alpha * sum of src over its leading dimensions.
void sum_leading_into(Tensor& dst, const Tensor& src, float alpha = 1.0f);

// Reductions over the last axis: (..., N) -> (...).
Tensor sum_last(const Tensor& a);
Tensor max_last(const Tensor& a);
double sum_all(const Tensor& a);  // in double, so long sums keep their digits

// Exact (erf) GELU, element by element, using glibc's vector math (tensor/fast_math.cpp), and its
// slope GELU'(x) = Phi(x) + x phi(x), the factor a backward multiplies the incoming gradient by. With
// slope given, gelu writes both in one pass (erf evaluated once per element).
// The _reference forms are the plain scalar loops the fast ones are tested against.
Tensor gelu(const Tensor& x, Tensor* slope = nullptr);
Tensor gelu_slope(const Tensor& x);
Tensor gelu_reference(const Tensor& x);
Tensor gelu_slope_reference(const Tensor& x);

// x[i] = exp(x[i]) for count numbers, vectorised (tensor/fast_math.cpp); for softmax rows.
void exp_inplace(float* x, int64_t count);

// One softmax row of `length` entries of which the first `visible` take part (a causal mask hides
// the rest): y[j] = exp(x[j] - max) / sum over the visible j', and y[j] = 0 past them. y may be x.
void softmax_row(const float* x, float* y, int64_t visible, int64_t length);
// Its backward: dx[j] = y[j] * (g[j] - sum_j' g[j'] y[j']) over the visible entries, 0 past them.
// dx may be g.
void softmax_row_backward(const float* y, const float* g, float* dx, int64_t visible, int64_t length);

// LayerNorm of `rows` rows of `width`: y = weight * (x - mean) * rstd + bias, rstd = 1 / sqrt(var + eps),
// var the biased (1 / width) variance as in PyTorch; each row's mean and rstd are written out.
void layer_norm_rows(const float* x, const float* weight, const float* bias, float eps, int64_t rows, int64_t width,
                     float* y, float* mean, float* rstd);
// The same for x (..., D), weight and bias (D): y, with each row's mean and rstd written into mean
// and rstd (resized to the rows), which a backward reads.
Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, std::vector<float>& mean,
                          std::vector<float>& rstd);
// Its backward for one row, with x_hat = (x - mean) * rstd and dx_hat = g * weight:
//   dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))   (added onto dx when add_to_dx)
//   dweight += g * x_hat;  dbias += g                                     (each skipped when null)
// dx may be g: each entry of g is read before dx's entry of the same index is written.
void layer_norm_row_backward(const float* x, const float* g, const float* weight, float mean, float rstd, int64_t width,
                             float* dx, bool add_to_dx, float* dweight, float* dbias);

bool all_finite(const Tensor& a);

}  // namespace wai
