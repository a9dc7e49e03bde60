// MLP: the position-wise feed-forward layer, Linear(D, hidden) -> exact GELU -> Linear(hidden, D).
// With the kernels setting at `fast`, the first Linear and GELU are one op (fast::linear_gelu), and
// a Block takes its residual sum into the second (Linear::forward_onto).
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
    Value forward(const Value& x) const { return project.forward(activated(x)); }

    // gelu(expand(x)), what the second Linear reads: (B, T, D) -> (B, T, hidden)
    Value activated(const Value& x) const {
        if (fast_kernels()) return fast::linear_gelu(x, expand.weight, expand.bias);  // the same, one op
        return gelu(expand.forward(x));
    }

    Linear expand, project;  // D -> hidden, hidden -> D
};

}  // namespace wai
