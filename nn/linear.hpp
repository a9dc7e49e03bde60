// Linear: y = x W^T + b, with W stored (out, in) as in PyTorch so weights carry over unchanged; the
// rows of x, however many leading dimensions, go through a single gemm (autograd/linear.cpp).
// Leaves out a bias-free variant: every Linear in the model has a bias.
#pragma once
#include "autograd/ops.hpp"
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
        const Shape& s = x.shape();
        if (s.rank() == 0 || s.last() != in_features)
            shape_error("Linear", s.str() + " x " + weight.shape().str() + "T",
                        "the last dimension must be in_features = " + std::to_string(in_features));
        return linear(x, weight, bias);  // (..., in) x (out, in)^T + (out) -> (..., out)
    }

    int64_t in_features, out_features;
    Value weight;  // (out, in)
    Value bias;    // (out)
};

}  // namespace wai
