// GELU's two transcendental functions, erfc and exp, written so that a compiler turns a loop of them
// into vector code, for the one build that has no vector maths library: WebAssembly (the page).
// Natively, fast::normal_cdf and fast::gelu_slope_given_cdf are autograd/formulas.hpp's, which GCC
// sends to glibc's vector erfc and exp (libmvec) under -ffast-math; in WebAssembly each call of those
// would be a scalar call into the C library, a quarter of the page's training step
// (docs/performance.md, section 12). The same formulas, with
//   erfc(a) = t exp(-a^2 + P(t)), t = 1 / (1 + a / 2), a >= 0: P the degree-9 Chebyshev fit of
//             Numerical Recipes' erfcc (fractional error under 1.2e-7 everywhere);
//   exp(x)  = 2^n e^r, n = the nearest integer to x / ln 2, r = x - n ln 2 (ln 2 in two parts):
//             e^r by Cephes' expf polynomial, 2^n by the exponent's bits.
// All in float, four to a WebAssembly vector, branch-free (clamps and selects); the page's training
// step went from 65 to 57.5 ms with them (docs/performance.md, section 12).
// Leaves out NaN and infinity (the files that use them are compiled with -ffast-math, which
// assumes neither) and subnormal results (flushed to 0 below e^-87).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "autograd/formulas.hpp"

namespace wai::fast {

// e^x of a float, to within 8.2e-8 relative (about 1.4 units in the last place).
inline float exp_vectorisable(float x) {
    const float clamped = std::fmin(std::fmax(x, -87.0f), 88.0f);
    const float n = std::nearbyint(clamped * 1.44269504088896341f);
    float r = clamped - n * 0.693359375f;  // ln 2's first part, exact in n * it
    r = r + n * 2.12194440e-4f;            // and the rest
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    const uint32_t exponent = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float two_to_n;
    std::memcpy(&two_to_n, &exponent, sizeof two_to_n);
    return x < -87.0f ? 0.0f : p * two_to_n;
}

// Phi(x), the standard normal distribution function, = erfc(-x / sqrt 2) / 2, with
// erfc(a) = t e^(-a^2) e^(P(t)) for a = |x| / sqrt 2 >= 0 and e^(-a^2) = e^(-x^2 / 2), the same
// factor as GELU's density below (computed once in a loop that needs both): Phi(-|x|) is half of
// that, Phi(|x|) one minus it. Within 4.6e-7 relative of the exact Phi for |x| < 1, and closer to it
// than 0.5 erfcf(-x / sqrt 2) past that, where the rounding of x / sqrt 2 costs the formula more
// (tests/test_gelu_vector.cpp).
inline float normal_cdf_vectorisable(float x) {
    const float a = std::fabs(x) * 0.70710678118654752f;
    const float t = 1.0f / (1.0f + 0.5f * a);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    const float lower_tail = 0.5f * t * exp_vectorisable(-0.5f * x * x) * exp_vectorisable(p);  // Phi(-|x|)
    return x < 0.0f ? lower_tail : 1.0f - lower_tail;
}

// GELU'(x) = Phi(x) + x phi(x), as autograd/formulas.hpp writes it, phi the standard normal density.
inline float gelu_slope_vectorisable(float x, float cdf) {
    return cdf + x * (0.3989422804014327f * exp_vectorisable(-0.5f * x * x));
}

// What fast/linear_gelu.cpp calls: these in WebAssembly, the formulas' own natively.
#if defined(__wasm__)
inline float normal_cdf(float x) { return normal_cdf_vectorisable(x); }
inline float gelu_slope_given_cdf(float x, float cdf) { return gelu_slope_vectorisable(x, cdf); }
#else
using wai::gelu_slope_given_cdf;
using wai::normal_cdf;
#endif

}  // namespace wai::fast
