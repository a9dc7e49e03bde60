// Transformer: wiring of the layers; every number is computed by the modules it calls.
// Leaves out positions beyond the scheme's reach: the scheme itself refuses them.
#include "nn/transformer.hpp"

#include <stdexcept>

namespace wai {

static int64_t checked_width(const TransformerConfig& c) {
    if (c.vocab <= 0 || c.outputs <= 0 || c.dim <= 0 || c.layers <= 0 || c.heads <= 0 || c.mlp_hidden <= 0)
        throw std::invalid_argument("Transformer: vocab, outputs, dim, layers, heads and mlp must all be positive");
    if (c.dim % c.heads != 0)
        throw std::invalid_argument("Transformer: " + std::to_string(c.heads) + " heads do not divide the width " +
                                    std::to_string(c.dim));
    return c.dim;
}

static std::vector<std::unique_ptr<Block>> make_blocks(const TransformerConfig& c, const PositionEncoding& position,
                                                       Generator& generator) {
    std::vector<std::unique_ptr<Block>> blocks;
    for (int64_t i = 0; i < c.layers; ++i)
        blocks.push_back(std::make_unique<Block>(c.dim, c.heads, c.mlp_hidden, position, generator));
    return blocks;
}

// Members are built in declaration order, which is also the order their numbers are drawn.
Transformer::Transformer(const TransformerConfig& c, std::unique_ptr<PositionEncoding> p, Generator& generator)
    : config(c),
      position(std::move(p)),
      tokens(c.vocab, checked_width(c), generator),
      blocks(make_blocks(c, *position, generator)),
      head(c.dim, c.outputs, generator) {
    register_module("tokens", tokens);
    register_module("position", *position);
    for (size_t i = 0; i < blocks.size(); ++i) register_module("blocks." + std::to_string(i), *blocks[i]);
    register_module("head", head);
}

Value Transformer::forward(const std::vector<int>& ids, int64_t B, int64_t T, const ForwardOptions& options) const {
    const PositionEncoding& scheme = options.position ? *options.position : *position;
    Value h = tokens.forward(ids, Shape{B, T});  // (B, T, D)
    h = scheme.add_to_embeddings(h);             // (B, T, D)
    for (const auto& block : blocks) h = block->forward(h, options);
    return head.forward(h);                      // (B, T, n_out)
}

}  // namespace wai
