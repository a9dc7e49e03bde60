// The transcendental loops (exp, erf) that would otherwise cost more than every matmul of a step.
// This file alone is compiled with -ffast-math so GCC calls glibc's vector math (libmvec); that also
// lets it assume no NaN or infinity exists, so no finiteness check may live here (kernels.cpp has them).
// Leaves out accuracy claims beyond libmvec's own (about 4 ulp); tests compare with the scalar loops.
#include <cmath>

#include "tensor/kernels.hpp"

namespace wai {

void exp_inplace(float* x, int64_t count) {
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) x[i] = expf(x[i]);
}

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

}  // namespace wai
