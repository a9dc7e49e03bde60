// LayerNorm over the last dimension, weight 1 and bias 0 at the start, eps 1e-5 (PyTorch's): the
// parameters around the op of autograd/layer_norm.cpp. Leaves out normalising
// over more than one trailing dimension, and running statistics (LayerNorm has none).
#pragma once
#include "autograd/ops.hpp"
#include "nn/module.hpp"

namespace wai {

class LayerNorm : public Module {
public:
    explicit LayerNorm(int64_t d, float e = 1e-5f) : dim(d), eps(e) {
        weight = register_parameter("weight", Tensor::full({d}, 1.0f));
        bias = register_parameter("bias", Tensor::zeros({d}));
    }

    // (..., D) -> (..., D)
    Value forward(const Value& x) const {
        return layer_norm(x, weight, bias, eps);  // (..., D) -> (..., D)
    }

    int64_t dim;
    float eps;
    Value weight, bias;  // (D), (D)
};

}  // namespace wai
