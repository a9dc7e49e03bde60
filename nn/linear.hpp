// Linear: y = x W^T + b, with W stored (out, in) as in PyTorch so weights carry over unchanged.
// Leaves out a bias-free variant: every Linear in the model has a bias.
#pragma once
#include "nn/module.hpp"

namespace wai {

class Linear : public Module {
public:
    Linear(int64_t in_features, int64_t out_features, Generator& generator);
    Value forward(const Value& x) const;  // (..., in) -> (..., out)

    int64_t in_features, out_features;
    Value weight;  // (out, in)
    Value bias;    // (out)
};

}  // namespace wai
