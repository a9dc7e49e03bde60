// The fast kernels: ops that compute what a chain of plain ops (autograd/ops.hpp) computes, with
// fewer passes over memory. FastTransformer (fast/fast_transformer.cpp) calls each where the plain
// model calls the chain it replaces, and a test holds each to that chain (tests/test_fast_kernels.cpp):
// the same values and gradients within float rounding. Shapes use the letters of autograd/ops.hpp.
// Leaves out the plain ops themselves, and RoPE's fast op (fast/rope.hpp).
#pragma once
#include <vector>

#include "autograd/ops.hpp"

namespace wai::fast {

// causal_attention.cpp: softmax(scale * q k^T + bias, causal) v with q, k, v (..., T, H) and bias
// undefined or of a trailing shape of the scores (..., T, T) (for heads, (NH, T, T)) -> (..., T, H).
// weights, when given, receives the softmax (..., T, T). Replaces matmul, scale, add, softmax, matmul.
Value causal_attention(const Value& q, const Value& k, const Value& v, const Value& bias, float scale,
                       Tensor* weights = nullptr);

// linear_split.cpp: split_last(linear(x, weight, bias), parts), each part computed from its own rows
// of weight and bias: (..., in), (parts*C, in), (parts*C) -> parts x (..., C).
std::vector<Value> linear_split(const Value& x, const Value& weight, const Value& bias, int parts);

// linear_gelu.cpp: gelu(linear(x, weight, bias)), the bias and GELU applied in one pass over the
// product, the slope kept: (..., in), (out, in), (out) -> (..., out).
Value linear_gelu(const Value& x, const Value& weight, const Value& bias);

// linear_onto.cpp: add(residual, linear(x, weight, bias)), a residual branch's last layer and sum:
// (..., out), (..., in), (out, in), (out) -> (..., out).
Value linear_onto(const Value& residual, const Value& x, const Value& weight, const Value& bias);

// layer_norm.cpp: layer_norm(x, weight, bias, eps), the backward writing dx without a new tensor.
Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps = 1e-5f);  // (..., D)

}  // namespace wai::fast
