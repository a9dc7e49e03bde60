// Every plain differentiable op of the engine, one declaration each; each is defined, forward beside
// backward, in the file named on its line; no backward reuses the memory of its incoming gradient.
// Shapes: B batch, T time (query positions), Tk key positions, D model width, NH heads, H head width
// (D = NH * H), V vocabulary (or classes), M, N, K a matrix product's rows, columns and inner size.
// Leaves out the model's layers (nn/), the position schemes' own ops (positional/), and the fast
// kernels that replace chains of these ops (fast/fast_ops.hpp).
#pragma once
#include <vector>

#include "autograd/value.hpp"

namespace wai {

// arithmetic.cpp. For add, subtract and multiply, b has a's shape or a's trailing shape and then
// repeats over a's leading dimensions (a bias (D) over (B, T, D)); its gradient sums over them.
Value add(const Value& a, const Value& b);       // (...) + (trailing ...)
Value subtract(const Value& a, const Value& b);  // (...) - (trailing ...)
Value multiply(const Value& a, const Value& b);  // (...) * (trailing ...)
Value scale(const Value& a, float factor);       // (...) -> (...)
Value sum(const Value& a);                       // (...) -> ()
Value mean(const Value& a);                      // (...) -> ()

// matmul.cpp: (..., M, K) x (..., K, N) -> (..., M, N); either operand transposed in place of
// (..., K, M) or (..., N, K); one operand may be a single 2-D matrix shared by the batch.
Value matmul(const Value& a, const Value& b, bool trans_a = false, bool trans_b = false);

// linear.cpp: x W^T + b in one op, as matmul(x, weight, false, true) then add(., bias) would give.
Value linear(const Value& x, const Value& weight, const Value& bias);  // (..., in), (out, in), (out) -> (..., out)

// shape_ops.cpp
Value reshape(const Value& a, const Shape& shape);         // same numbers, new shape
Value transpose(const Value& a, int axis0, int axis1);     // swap two axes, e.g. (B, T, NH, H) -> (B, NH, T, H)
Value transpose_last2(const Value& a);                     // (..., M, N) -> (..., N, M)
// split_last.cpp
std::vector<Value> split_last(const Value& a, int parts);  // (..., parts*C) -> parts x (..., C)

// embedding.cpp: rows of table (V, D) gathered by indices laid out as index_shape -> (index_shape..., D).
Value embedding(const Value& table, const std::vector<int>& indices, const Shape& index_shape);

// layer_norm.cpp: normalise each row of the last axis, then weight * x_hat + bias.
Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps = 1e-5f);  // (..., D)

// gelu.cpp: x * Phi(x), with the exact error function.
Value gelu(const Value& x);  // (...) -> (...)

// softmax.cpp: softmax over the last axis of (..., T, Tk). With causal, row t sees keys up to
// t + (Tk - T): the queries are the last T of Tk positions.
Value softmax(const Value& x, bool causal = false);

// cross_entropy.cpp: logits (..., V), one target per row; target ignore_index is not scored.
// The mean of -log softmax(logits)[target] over the scored rows -> ().
constexpr int ignore_index = -1;
Value cross_entropy(const Value& logits, const std::vector<int>& targets);

}  // namespace wai
