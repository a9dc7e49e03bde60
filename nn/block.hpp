// Block: one pre-LayerNorm Transformer layer, two residual branches each normalised on the way in:
// x = x + attention(norm1(x)); x = x + mlp(norm2(x)).
// Leaves out post-LN ordering and dropout.
#pragma once
#include "nn/attention.hpp"
#include "nn/layer_norm.hpp"
#include "nn/mlp.hpp"

namespace wai {

class Block : public Module {
public:
    Block(int64_t dim, int64_t heads, int64_t mlp_hidden, const PositionEncoding& position, Generator& generator)
        : norm1(dim), attention(dim, heads, position, generator), norm2(dim), mlp(dim, mlp_hidden, generator) {
        register_module("norm1", norm1);
        register_module("attention", attention);
        register_module("norm2", norm2);
        register_module("mlp", mlp);
    }

    // (B, T, D) -> (B, T, D)
    Value forward(const Value& x, const ForwardOptions& options = {}) const {
        const Value h = add(x, attention.forward(norm1.forward(x), options));  // (B, T, D)
        return add(h, mlp.forward(norm2.forward(h)));                          // (B, T, D)
    }

    LayerNorm norm1;
    CausalSelfAttention attention;
    LayerNorm norm2;
    MLP mlp;
};

}  // namespace wai
