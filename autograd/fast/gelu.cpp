// fast::gelu: the GELU op of autograd/gelu.cpp, with its forward keeping the slope GELU'(x) it
// computes in the same pass as y, and its backward multiplying the incoming gradient by it in place.
// A test holds it to the plain op. Leaves out the tanh approximation.
#include "autograd/fast/fast_ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

struct Gelu final : Op {
    Tensor slope;  // GELU'(x), the shape of x
    explicit Gelu(Tensor s) : slope(std::move(s)) {}

    // y = x * Phi(x), and slope = Phi(x) + x phi(x) when a backward may come
    static Value forward(const Value& x) {
        if (!grad_enabled() || !x.requires_grad()) return Value(wai::gelu(x.value()));  // no graph to record
        Tensor slope;
        Tensor y = wai::gelu(x.value(), &slope);
        return record("gelu", std::move(y), {x}, std::make_unique<Gelu>(std::move(slope)));
    }
    // dx += g * GELU'(x), formed where g lies
    void backward(Node& out) override {
        Value& x = out.parents[0];
        if (!x.requires_grad()) return;
        Tensor dx = take_incoming_grad(out);
        multiply_inplace(dx, slope);
        x.accumulate_grad(std::move(dx));
    }
};

}  // namespace

Value gelu(const Value& x) { return Gelu::forward(x); }

}  // namespace wai::fast
