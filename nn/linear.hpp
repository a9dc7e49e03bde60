// Linear: y = x W^T + b, with W stored (out, in) as in PyTorch so weights carry over unchanged; the
// rows of x, however many leading dimensions, go through a single gemm (autograd/linear.cpp).
// Leaves out a bias-free variant: every Linear in the model has a bias.
#pragma once
#include "autograd/fast/fast_ops.hpp"
#include "autograd/ops.hpp"
#include "nn/kernels_setting.hpp"
#include "nn/init.hpp"
#include "nn/module.hpp"

namespace wai {

class Linear : public Module {
public:
    Linear(int64_t in, int64_t out, Generator& generator) : in_features(in), out_features(out) {
        weight = register_parameter("weight", linear_init({out, in}, in, generator));
        bias = register_parameter("bias", linear_init({out}, in, generator));
    }

    // (..., in) -> (..., out)
    Value forward(const Value& x) const {
        forward_check(x);
        return linear(x, weight, bias);  // (..., in) x (out, in)^T + (out) -> (..., out)
    }

    // residual + forward(x), how a residual branch ends: (..., out), (..., in) -> (..., out). With
    // the kernels setting at `fast`, one op that adds the sum in the product's pass (fast::linear_onto).
    Value forward_onto(const Value& residual, const Value& x) const {
        if (!fast_kernels()) return add(residual, forward(x));
        forward_check(x);
        return fast::linear_onto(residual, x, weight, bias);
    }

    int64_t in_features, out_features;
    Value weight;  // (out, in)
    Value bias;    // (out)

private:
    void forward_check(const Value& x) const {
        const Shape& s = x.shape();
        if (s.rank() == 0 || s.last() != in_features)
            shape_error("Linear", s.str() + " x " + weight.shape().str() + "T",
                        "the last dimension must be in_features = " + std::to_string(in_features));
    }
};

}  // namespace wai
