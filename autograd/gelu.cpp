// The GELU op, exact form: y = x * Phi(x), Phi the standard normal distribution function (via erf).
// The forward keeps the slope GELU'(x) it computes alongside y, so the backward is one product.
// Leaves out the tanh approximation; the kernels themselves are in tensor/fast_math.cpp.
#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct Gelu final : Op {
    Tensor slope;  // GELU'(x), the shape of x
    explicit Gelu(Tensor s) : slope(std::move(s)) {}

    // y = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), and slope = Phi(x) + x * phi(x) when a backward may come
    static Value forward(const Value& x) {
        if (!grad_enabled() || !x.requires_grad()) return Value(wai::gelu(x.value()));  // no graph to record
        Tensor slope;
        Tensor y = wai::gelu(x.value(), &slope);
        return record("gelu", std::move(y), {x}, std::make_unique<Gelu>(std::move(slope)));
    }
    // dx += g * GELU'(x), formed where g lies (it is not needed afterwards)
    void apply(Node& out) override {
        Value& x = out.parents[0];
        if (!x.requires_grad()) return;
        multiply_inplace(out.grad, slope);
        x.accumulate_grad(std::move(out.grad));
    }
};

}  // namespace

Value gelu(const Value& x) { return Gelu::forward(x); }

}  // namespace wai
