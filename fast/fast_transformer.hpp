// FastTransformer: the Transformer of nn/transformer.hpp, the same parameters drawn in the same order,
// whose forward computes the same numbers (within float rounding) through the fast kernels
// (fast/fast_ops.hpp, fast/rope.hpp), with fewer passes over memory: q, k and v read from their rows
// of the qkv weight; the scores, softmax and weighted sum in one op; RoPE and LayerNorm's backwards
// writing where the gradient lies; the first MLP Linear and GELU in one op; each residual sum taken
// into its branch's last Linear. A program chooses it once, where the model is made
// (RunConfig::make_transformer); tests hold it to the plain forward (tests/test_kernels_choice.cpp).
// Leaves out everything the plain Transformer leaves out; a scheme other than RoPE turns queries and
// keys with its own (plain) ops.
#pragma once
#include <memory>

#include "nn/transformer.hpp"

namespace wai::fast {

class FastTransformer : public Transformer {
public:
    using Transformer::Transformer;
    // tokens (B, T) -> logits (B, T, n_out), as Transformer::forward
    Value forward(const std::vector<int>& tokens, int64_t B, int64_t T, const ForwardOptions& options = {}) const override;
};

// A TransformerMaker (nn/transformer.hpp) for RunConfig::make_transformer.
std::unique_ptr<Transformer> make_fast_transformer(const TransformerConfig& config, std::unique_ptr<PositionEncoding> position,
                                                   Generator& generator);

}  // namespace wai::fast
