// LayerNorm: parameters around the op of autograd/layer_norm.cpp (or its fast kernel).
// Leaves out running statistics: LayerNorm has none.
#include "nn/layer_norm.hpp"

#include "autograd/fast/fast_ops.hpp"
#include "nn/kernels_setting.hpp"

namespace wai {

LayerNorm::LayerNorm(int64_t d, float e) : dim(d), eps(e) {
    weight = register_parameter("weight", Tensor::full({d}, 1.0f));
    bias = register_parameter("bias", Tensor::zeros({d}));
}

Value LayerNorm::forward(const Value& x) const {
    return fast_kernels() ? fast::layer_norm(x, weight, bias, eps) : layer_norm(x, weight, bias, eps);  // (..., D)
}

}  // namespace wai
