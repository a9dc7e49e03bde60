// The GELU op, exact form: y = x * Phi(x), Phi the standard normal distribution function (via erf).
// The element loops are here too, forward and slope, with autograd/formulas.hpp's normal_cdf;
// this file is compiled with -ffast-math (as fast/linear_gelu.cpp) so GCC calls glibc's vector erf
// and exp (libmvec): no finiteness check may live here.
// Leaves out the tanh approximation.
#include <cmath>

#include "autograd/ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

// y = x Phi(x), element by element
Tensor gelu(const Tensor& x) {  // x's shape
    Tensor out = Tensor::uninitialized(x.shape());
    const float* in = x.data();
    float* y = out.data();
    const int64_t count = x.numel();
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) y[i] = in[i] * normal_cdf(in[i]);
    return out;
}

// d/dx [x Phi(x)] = Phi(x) + x phi(x), element by element
Tensor gelu_slope(const Tensor& x) {  // x's shape
    Tensor out = Tensor::uninitialized(x.shape());
    const float* in = x.data();
    float* dy = out.data();
    const int64_t count = x.numel();
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) dy[i] = gelu_slope_given_cdf(in[i], normal_cdf(in[i]));
    return out;
}

namespace {  // each op type is private to its file

struct Gelu final : Op {
    // y = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2))
    static Value forward(const Value& x) {
        return record("gelu", wai::gelu(x.value()), {x}, std::make_unique<Gelu>());
    }
    // dx += g * GELU'(x), with GELU'(x) = Phi(x) + x phi(x) and phi the standard normal density
    void backward(Node& out) override {
        Value& x = out.parents[0];
        if (x.requires_grad()) x.accumulate_grad(wai::multiply(out.grad, gelu_slope(x.value())));
    }
};

}  // namespace

Value gelu(const Value& x) { return Gelu::forward(x); }

}  // namespace wai
