// LayerNorm: parameters around the fused op of autograd/layer_norm.cpp.
// Leaves out running statistics: LayerNorm has none.
#include "nn/layer_norm.hpp"

#include "autograd/ops.hpp"

namespace wai {

LayerNorm::LayerNorm(int64_t d, float e) : dim(d), eps(e) {
    weight = register_parameter("weight", Tensor::full({d}, 1.0f));
    bias = register_parameter("bias", Tensor::zeros({d}));
}

Value LayerNorm::forward(const Value& x) const { return layer_norm(x, weight, bias, eps); }

}  // namespace wai
