// MLP: two Linear layers with GELU between. Leaves out nothing else.
#include "nn/mlp.hpp"

#include "autograd/ops.hpp"

namespace wai {

MLP::MLP(int64_t dim, int64_t hidden, Generator& generator) : expand(dim, hidden, generator), project(hidden, dim, generator) {
    register_module("expand", expand);
    register_module("project", project);
}

Value MLP::forward(const Value& x) const {
    return project.forward(gelu(expand.forward(x)));  // (B, T, D) -> (B, T, hidden) -> (B, T, D)
}

}  // namespace wai
