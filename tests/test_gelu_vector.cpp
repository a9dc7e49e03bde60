// Tests of fast/gelu_vector.hpp, the exp and Phi the web build's GELU is computed with, natively:
// each held to the exact function (in double) over a fixed sample of floats, and GELU's slope to
// autograd/formulas.hpp's (the C library's erfcf and expf) element by element.
// Bounds: exp 1e-7 relative (measured 8.2e-8 on 4 million floats); Phi 5e-7 relative, or the C
// library's formula's own error where that is larger (4.6e-7 for |x| < 1 on 4 million floats, where
// the formula with erfcf gives 1.7e-7; 1.3e-6 against its 2.8e-6 from 3 to 6): a few units in the
// last place of a float (6e-8).
// Leaves out the speed (docs/performance.md, section 12) and the web build itself (make test-web
// holds its training lines to native ones).
#include "tests/catch.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "autograd/formulas.hpp"
#include "fast/gelu_vector.hpp"

using namespace wai;

namespace {

// Floats where the functions are used: uniform on [-lo, hi], and small ones of every scale.
std::vector<float> sample(float lo, float hi, int count) {
    std::mt19937 g(7);
    std::uniform_real_distribution<float> wide(lo, hi), unit(-1.0f, 1.0f);
    std::vector<float> xs;
    for (int i = 0; i < count; ++i)
        xs.push_back(i % 5 == 0 ? std::ldexp(unit(g), -static_cast<int>(g() % 40)) : wide(g));
    return xs;
}

}  // namespace

TEST_CASE("fast::exp_vectorisable is e^x to 1e-7 relative, and 0 below e^-87", "[fast][gelu]") {
    double worst = 0;
    for (const float x : sample(-87.0f, 88.0f, 400000)) {
        const double exact = std::exp(static_cast<double>(x));
        worst = std::fmax(worst, std::fabs(fast::exp_vectorisable(x) - exact) / exact);
    }
    INFO("worst relative error " << worst);
    CHECK(worst < 1e-7);
    CHECK(fast::exp_vectorisable(0.0f) == 1.0f);
    CHECK(fast::exp_vectorisable(-87.5f) == 0.0f);
    CHECK(fast::exp_vectorisable(-1000.0f) == 0.0f);
}

TEST_CASE("fast::normal_cdf_vectorisable is Phi as closely as the C library's erfcf gives it", "[fast][gelu]") {
    // The bands of |x|: near 0 the fit and float's roundings set the error; further out the
    // rounding of the argument does, for the formula with erfcf too.
    const double edges[] = {0, 1, 3, 6, 13};
    double worst[4] = {}, worst_library[4] = {};
    for (const float x : sample(-13.0f, 13.0f, 400000)) {
        const double exact = 0.5 * std::erfc(-static_cast<double>(x) / std::sqrt(2.0));
        if (exact < 1e-37) continue;  // past float's normal numbers
        int band = 0;
        while (band < 3 && std::fabs(x) >= edges[band + 1]) ++band;
        worst[band] = std::fmax(worst[band], std::fabs(fast::normal_cdf_vectorisable(x) - exact) / exact);
        worst_library[band] = std::fmax(worst_library[band], std::fabs(normal_cdf(x) - exact) / exact);
    }
    for (int band = 0; band < 4; ++band) {
        INFO("|x| from " << edges[band] << " to " << edges[band + 1] << ": worst relative error " << worst[band]
                         << ", with erfcf " << worst_library[band]);
        CHECK(worst[band] < std::fmax(5e-7, worst_library[band]));
    }
    CHECK(std::fabs(fast::normal_cdf_vectorisable(0.0f) - 0.5f) < 1e-7f);
    CHECK(fast::normal_cdf_vectorisable(20.0f) == 1.0f);
    CHECK(fast::normal_cdf_vectorisable(-20.0f) == 0.0f);
}

TEST_CASE("GELU's slope through fast/gelu_vector.hpp equals autograd/formulas.hpp's to rounding", "[fast][gelu]") {
    double worst = 0;
    for (const float x : sample(-12.0f, 12.0f, 200000)) {
        const float cdf = normal_cdf(x);
        // The slope is of order 1 and passes through 0 near x = -0.75: held absolutely.
        worst = std::fmax(worst, std::fabs(fast::gelu_slope_vectorisable(x, fast::normal_cdf_vectorisable(x)) -
                                           gelu_slope_given_cdf(x, cdf)));
    }
    INFO("worst difference " << worst);
    CHECK(worst < 1e-6);
}
