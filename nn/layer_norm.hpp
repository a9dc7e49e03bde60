// LayerNorm over the last dimension, weight 1 and bias 0 at the start, eps 1e-5 (PyTorch's).
// Leaves out normalising over more than one trailing dimension.
#pragma once
#include "nn/module.hpp"

namespace wai {

class LayerNorm : public Module {
public:
    explicit LayerNorm(int64_t dim, float eps = 1e-5f);
    Value forward(const Value& x) const;  // (..., D) -> (..., D)

    int64_t dim;
    float eps;
    Value weight, bias;  // (D), (D)
};

}  // namespace wai
