// The GELU op, exact form: y = x * Phi(x), Phi the standard normal distribution function (via erf).
// Leaves out the tanh approximation; the element-wise kernels are in tensor/fast_math.cpp.
#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

namespace wai {

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
