// FastTransformer's forward: nn/transformer.cpp, nn/block.hpp and nn/attention.cpp's wiring with the
// fast kernels in place of the chains of plain ops they replace.
// Leaves out the layers' parameters and checks, which are the plain ones'.
#include "fast/fast_transformer.hpp"

#include <cmath>

#include "fast/fast_ops.hpp"
#include "fast/rope.hpp"
#include "positional/rope.hpp"

namespace wai::fast {

namespace {

// The scheme's turn of queries or keys, RoPE's through fast::rope: (B, NH, T, H) -> (B, NH, T, H)
Value rotate_queries_keys(const PositionEncoding& scheme, const Value& x) {
    const auto* rotary = dynamic_cast<const RotaryPositions*>(&scheme);
    if (rotary == nullptr) return scheme.rotate_queries_keys(x);
    const int64_t T = x.shape()[x.shape().rank() - 2];
    const Value rotated = fast::rope(x, make_rope_table(T, rotary->frequencies, rotary->pairing));
    return rotary->query_key_scale == 1.0f ? rotated : scale(rotated, rotary->query_key_scale);
}

// CausalSelfAttention::forward without its output Linear: (B, T, D) -> (B, T, D), the heads'
// attended values merged.
Value attend(const CausalSelfAttention& a, const Value& x, const ForwardOptions& options) {
    a.check_input(x);
    const int64_t B = x.shape()[0], T = x.shape()[1];
    const std::vector<Value> qkv = linear_split(x, a.qkv.weight, a.qkv.bias, 3);  // 3 x (B, T, D)
    const PositionEncoding& scheme = options.position ? *options.position : a.position;
    const Value q = rotate_queries_keys(scheme, split_heads(qkv[0], a.heads));  // (B, NH, T, H)
    const Value k = rotate_queries_keys(scheme, split_heads(qkv[1], a.heads));  // (B, NH, T, H)
    const Value v = scheme.transform_values(split_heads(qkv[2], a.heads));      // (B, NH, T, H)
    Value bias = scheme.score_bias(a.heads, T);  // (NH, T, T), or undefined
    if (bias.defined() && a.heads == 1) bias = reshape(bias, Shape{T, T});
    const float factor = options.score_scale / std::sqrt(static_cast<float>(a.head_dim));
    Tensor weights;
    Tensor* kept = options.attention_weights ? &weights : nullptr;
    const Value attended = causal_attention(q, k, v, bias, factor, kept);  // (B, NH, T, H)
    if (kept) options.attention_weights->push_back(weights.reshaped(Shape{B, a.heads, T, T}));
    return merge_heads(scheme.transform_attended(attended), a.heads);  // (B, T, D)
}

// Block::forward, each residual sum taken into its branch's last Linear: (B, T, D) -> (B, T, D)
Value block_forward(const Block& b, const Value& x, const ForwardOptions& options) {
    const Linear &output = b.attention.output, &expand = b.mlp.expand, &project = b.mlp.project;
    const Value attended = attend(b.attention, fast::layer_norm(x, b.norm1.weight, b.norm1.bias, b.norm1.eps), options);
    const Value h = linear_onto(x, attended, output.weight, output.bias);  // x + attention(norm1(x))
    const Value activated = linear_gelu(fast::layer_norm(h, b.norm2.weight, b.norm2.bias, b.norm2.eps), expand.weight, expand.bias);
    return linear_onto(h, activated, project.weight, project.bias);  // h + mlp(norm2(h))
}

}  // namespace

Value FastTransformer::forward(const std::vector<int>& ids, int64_t B, int64_t T, const ForwardOptions& options) const {
    const PositionEncoding& scheme = options.position ? *options.position : *position;
    Value h = tokens.forward(ids, Shape{B, T});  // (B, T, D)
    h = scheme.add_to_embeddings(h);             // (B, T, D)
    for (const auto& block : blocks) h = block_forward(*block, h, options);
    return head.forward(h);                      // (B, T, n_out)
}

std::unique_ptr<Transformer> make_fast_transformer(const TransformerConfig& config, std::unique_ptr<PositionEncoding> position,
                                                   Generator& generator) {
    return std::make_unique<FastTransformer>(config, std::move(position), generator);
}

}  // namespace wai::fast
