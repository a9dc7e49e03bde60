// MLP: the position-wise feed-forward layer, Linear(D, hidden) -> exact GELU -> Linear(hidden, D).
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
        const Value hidden = expand.forward(x);  // (B, T, D) -> (B, T, hidden)
        return project.forward(fast_kernels() ? fast::gelu(hidden) : gelu(hidden));  // (B, T, hidden) -> (B, T, D)
    }

    Linear expand, project;  // D -> hidden, hidden -> D
};

}  // namespace wai
