// MLP: the position-wise feed-forward layer, Linear(D, hidden) -> exact GELU -> Linear(hidden, D).
// Leaves out gated variants (SwiGLU) and dropout.
#pragma once
#include "nn/linear.hpp"

namespace wai {

class MLP : public Module {
public:
    MLP(int64_t dim, int64_t hidden, Generator& generator) : expand(dim, hidden, generator), project(hidden, dim, generator) {
        register_module("expand", expand);
        register_module("project", project);
    }

    // (B, T, D) -> (B, T, hidden) -> (B, T, D)
    Value forward(const Value& x) const { return project.forward(gelu(expand.forward(x))); }

    Linear expand, project;  // D -> hidden, hidden -> D
};

}  // namespace wai
