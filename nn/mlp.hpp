// MLP: the position-wise feed-forward layer, Linear(D, hidden) -> exact GELU -> Linear(hidden, D).
// Leaves out gated variants (SwiGLU) and dropout.
#pragma once
#include "nn/linear.hpp"

namespace wai {

class MLP : public Module {
public:
    MLP(int64_t dim, int64_t hidden, Generator& generator);
    Value forward(const Value& x) const;  // (B, T, D) -> (B, T, D)

    Linear expand, project;  // D -> hidden, hidden -> D
};

}  // namespace wai
