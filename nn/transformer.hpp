// Transformer: token embedding, the position scheme's absolute part (if it has one), a stack of
// Blocks, and Linear(D, n_out) on the last hidden state (no final LayerNorm, as in the chapter).
// A program may make, in its place, a model that computes the same forward with other kernels from
// the same parameters (the fast tree, fast/fast_transformer.hpp): forward is virtual for that alone.
// Leaves out generation and weight tying; the output is logits at every position.
#pragma once
#include <memory>

#include "nn/block.hpp"
#include "nn/embedding.hpp"

namespace wai {

struct TransformerConfig {
    int64_t vocab = 16;     // V: token ids 0..V-1
    int64_t outputs = 16;   // classes predicted at each position
    int64_t dim = 64;       // D
    int64_t layers = 2;
    int64_t heads = 1;      // NH; head dim H = D / NH
    int64_t mlp_hidden = 256;
};

class Transformer : public Module {
public:
    // The scheme is built by the caller (positional/make_position_encoding) and owned here.
    // Parameters are drawn from `generator` in order: token embedding, blocks, head (a scheme with
    // parameters drew its own when the caller built it).
    Transformer(const TransformerConfig& config, std::unique_ptr<PositionEncoding> position, Generator& generator);
    // tokens: B*T ids, row-major (B, T) -> logits (B, T, n_out). options: training's by default;
    // a test may scale the scores, use another position scheme, or keep the attention weights.
    virtual Value forward(const std::vector<int>& tokens, int64_t B, int64_t T, const ForwardOptions& options = {}) const;

    TransformerConfig config;
    std::unique_ptr<PositionEncoding> position;
    Embedding tokens;
    std::vector<std::unique_ptr<Block>> blocks;
    Linear head;
};

// Makes the model a run trains, with the constructor's arguments: the plain Transformer, or one that
// computes the same another way (fast/fast_transformer.hpp's make_fast_transformer).
using TransformerMaker = std::unique_ptr<Transformer> (*)(const TransformerConfig& config,
                                                          std::unique_ptr<PositionEncoding> position, Generator& generator);

}  // namespace wai
