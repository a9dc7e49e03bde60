// MLP: two Linear layers with GELU between. Leaves out nothing else.
#include "nn/mlp.hpp"

#include "autograd/fast/fast_ops.hpp"
#include "nn/kernels_setting.hpp"

namespace wai {

MLP::MLP(int64_t dim, int64_t hidden, Generator& generator) : expand(dim, hidden, generator), project(hidden, dim, generator) {
    register_module("expand", expand);
    register_module("project", project);
}

Value MLP::forward(const Value& x) const {
    const Value hidden = expand.forward(x);  // (B, T, D) -> (B, T, hidden)
    return project.forward(fast_kernels() ? fast::gelu(hidden) : gelu(hidden));  // (B, T, hidden) -> (B, T, D)
}

}  // namespace wai
