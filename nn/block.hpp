// Block: one pre-LayerNorm Transformer layer, x = x + attention(norm1(x)); x = x + mlp(norm2(x)).
// Leaves out post-LN ordering and dropout.
#pragma once
#include "nn/attention.hpp"
#include "nn/layer_norm.hpp"
#include "nn/mlp.hpp"

namespace wai {

class Block : public Module {
public:
    Block(int64_t dim, int64_t heads, int64_t mlp_hidden, const PositionEncoding& position, Generator& generator);
    Value forward(const Value& x) const;  // (B, T, D) -> (B, T, D)

    LayerNorm norm1;
    CausalSelfAttention attention;
    LayerNorm norm2;
    MLP mlp;
};

}  // namespace wai
