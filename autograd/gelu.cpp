// The GELU op, exact form: y = x * Phi(x), Phi the standard normal distribution function (via erf).
// The element loops are here too, forward and slope; this file and fast/linear_gelu.cpp, alone
// of autograd/, are compiled with -ffast-math so GCC calls glibc's vector erf and exp (libmvec): no
// finiteness check may live here.
// Leaves out the tanh approximation.
#include <cmath>

#include "autograd/ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

// d/dx [x * Phi(x)] = Phi(x) + x * phi(x), with phi the standard normal density.
static constexpr float inv_sqrt_2pi = 0.3989422804014327f;

Tensor gelu_slope(const Tensor& x) {
    Tensor out = Tensor::uninitialized(x.shape());
    const float* in = x.data();
    float* dy = out.data();
    const int64_t count = x.numel();
    #pragma omp parallel for simd if (count > 65536) schedule(static)
    for (int64_t i = 0; i < count; ++i)
        dy[i] = 0.5f * (1.0f + erff(in[i] * float(M_SQRT1_2))) + in[i] * (inv_sqrt_2pi * expf(-0.5f * in[i] * in[i]));
    return out;
}

Tensor gelu(const Tensor& x, Tensor* slope) {
    Tensor out = Tensor::uninitialized(x.shape());
    const float* in = x.data();
    float* y = out.data();
    const int64_t count = x.numel();
    if (slope == nullptr) {
        #pragma omp parallel for simd if (count > 65536) schedule(static)
        for (int64_t i = 0; i < count; ++i) y[i] = 0.5f * in[i] * (1.0f + erff(in[i] * float(M_SQRT1_2)));
        return out;
    }
    *slope = Tensor::uninitialized(x.shape());
    float* dy = slope->data();
    #pragma omp parallel for simd if (count > 65536) schedule(static)
    for (int64_t i = 0; i < count; ++i) {
        const float cdf = 0.5f * (1.0f + erff(in[i] * float(M_SQRT1_2)));
        y[i] = in[i] * cdf;
        dy[i] = cdf + in[i] * (inv_sqrt_2pi * expf(-0.5f * in[i] * in[i]));
    }
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
