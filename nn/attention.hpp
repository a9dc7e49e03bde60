// CausalSelfAttention: queries, keys and values from one Linear(D, 3D), NH heads of size H = D/NH,
// scores s = scale * q k^T / sqrt(H) (+ the position scheme's bias), causal softmax, output Linear(D, D).
// What a test asks beyond training (a score scale, another position scheme, the weights for a
// picture) comes in with each forward as ForwardOptions: the layer keeps nothing between calls.
// Leaves out dropout and key-value caching.
#pragma once
#include <vector>

#include "nn/linear.hpp"
#include "nn/position.hpp"

namespace wai {

// Options for one forward pass of the model; the defaults are training's.
struct ForwardOptions {
    // Every score is multiplied by this: 1 in training; at test length T, log(T)/log(T_train) keeps
    // the softmax as sharp over T keys as over T_train (Chiang & Cholak 2022; positional/length_scaling.hpp).
    float score_scale = 1.0f;
    // A position scheme in place of the model's own, or null: a context-extended RoPE built for the
    // test (positional/context_extension.hpp), with the model's trained weights unchanged.
    const PositionEncoding* position = nullptr;
    // When given, each attention layer appends its softmax weights (B, NH, T, T), first layer first.
    std::vector<Tensor>* attention_weights = nullptr;
};

class CausalSelfAttention : public Module {
public:
    CausalSelfAttention(int64_t dim, int64_t heads, const PositionEncoding& position, Generator& generator);
    Value forward(const Value& x, const ForwardOptions& options = {}) const;  // (B, T, D) -> (B, T, D)
    // Throws a shape error unless x is (B, T, D).
    void check_input(const Value& x) const;

    int64_t dim, heads, head_dim;
    const PositionEncoding& position;  // the model's scheme (options.position may stand in for it)
    Linear qkv, output;  // D -> 3D, D -> D
};

// (B, T, NH*H) -> (B, NH, T, H), and back; with one head, (B, T, H) stays as it is (every op after
// the split works on (..., T, H)).
Value split_heads(const Value& x, int64_t heads);
Value merge_heads(const Value& x, int64_t heads);

// The attention formula as plain ops: softmax(factor * q k^T + bias, causal) v, with q, k, v
// (B, NH, T, H) and bias (NH, T, T) or undefined -> (B, NH, T, H); weights, when given, receives the
// softmax (B, NH, T, T). CausalSelfAttention calls it; tests and lessons hold other forms to it.
Value attention(const Value& q, const Value& k, const Value& v, const Value& bias, float factor,
                Tensor* weights = nullptr);

}  // namespace wai
