// MLP: the position-wise feed-forward layer, Linear(D, hidden) -> exact GELU -> Linear(hidden, D).
// With the kernels setting at `fast`, the first Linear and GELU are one op (fast::linear_gelu).
// Leaves out gated variants (SwiGLU) and dropout.
#pragma once
#include "autograd/fast/fast_ops.hpp"
#include "nn/kernels_setting.hpp"
#include "nn/linear.hpp"

namespace wai {

class MLP : public Module {
public:
    MLP(int64_t dim, int64_t hidden, Generator& generator) : expand(dim, hidden, generator), project(hidden, dim, generator) {
        register_module("expand", expand);
        register_module("project", project);
    }

    // (B, T, D) -> (B, T, D)
    Value forward(const Value& x) const {
        if (fast_kernels()) return project.forward(fast::linear_gelu(x, expand.weight, expand.bias));  // the same, fused
        const Value hidden = expand.forward(x);  // (B, T, D) -> (B, T, hidden)
        return project.forward(gelu(hidden));    // (B, T, hidden) -> (B, T, D)
    }

    Linear expand, project;  // D -> hidden, hidden -> D
};

}  // namespace wai
