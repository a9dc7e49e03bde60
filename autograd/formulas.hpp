// The formulas of softmax, LayerNorm and GELU on rows and elements of raw floats. Each is defined
// beside its op, forward and backward together: autograd/softmax.cpp, autograd/layer_norm.cpp,
// autograd/gelu.cpp. Declared here because the fast ops (fast/) compute with the same ones.
// Leaves out the ops themselves (autograd/ops.hpp).
#pragma once
#include <cmath>
#include <vector>

#include "tensor/tensor.hpp"

namespace wai {

// Exact (erf) GELU on one element, the formula written once: GELU(x) = x Phi(x), with Phi the standard
// normal distribution function, Phi(x) = 0.5 (1 + erf(x / sqrt 2)), and the slope a backward
// multiplies the incoming gradient by, GELU'(x) = Phi(x) + x phi(x), phi the standard normal density.
// Inline so that a loop over elements compiled with -ffast-math (autograd/gelu.cpp, fast/linear_gelu.cpp)
// calls glibc's vector erf and exp (libmvec).
inline float normal_cdf(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
inline float gelu_slope_given_cdf(float x, float cdf) {
    return cdf + x * (0.3989422804014327f * expf(-0.5f * x * x));
}

// GELU and its slope over a tensor, element by element (x any shape, the result x's shape).
Tensor gelu(const Tensor& x);
Tensor gelu_slope(const Tensor& x);

// One softmax row of `length` entries of which the first `visible` take part (a causal mask hides
// the rest): y[j] = exp(x[j] - max) / sum over the visible j', and y[j] = 0 past them. y may be x.
void softmax_row(const float* x, float* y, int64_t visible, int64_t length);
// Its backward: dx[j] = y[j] * (g[j] - sum_j' g[j'] y[j']) over the visible entries, 0 past them.
// dx may be g.
void softmax_row_backward(const float* y, const float* g, float* dx, int64_t visible, int64_t length);

// LayerNorm of one row of `width`: y = weight * (x - mean) * rstd + bias, rstd = 1 / sqrt(var + eps),
// var the biased (1 / width) variance as in PyTorch; the row's mean and rstd are written out.
void layer_norm_row(const float* x, const float* weight, const float* bias, float eps, int64_t width, float* y,
                    float& mean, float& rstd);
// Its backward for one row, with x_hat = (x - mean) * rstd and dx_hat = g * weight:
//   dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))
//   dweight += g * x_hat;  dbias += g                     (each of the three skipped when null)
// dx may be g: each entry of g is read before dx's entry of the same index is written.
void layer_norm_row_backward(const float* x, const float* g, const float* weight, float mean, float rstd, int64_t width,
                             float* dx, float* dweight, float* dbias);

}  // namespace wai
