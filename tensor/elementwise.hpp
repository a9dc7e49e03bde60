// Element-wise loops and last-axis reductions on whole tensors: the plain arithmetic the autograd ops
// are made of (softmax, LayerNorm and GELU have their formulas beside their ops, in autograd/).
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

// x[i] = exp(x[i]) for count numbers, vectorised (tensor/fast_math.cpp); for softmax rows.
void exp_inplace(float* x, int64_t count);

bool all_finite(const Tensor& a);

}  // namespace wai
