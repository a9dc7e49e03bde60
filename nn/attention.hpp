// CausalSelfAttention: queries, keys and values from one Linear(D, 3D), NH heads of size H = D/NH,
// scores s = scale * q k^T / sqrt(H) (+ the position scheme's bias), causal softmax, output Linear(D, D).
// `score_scale` is 1 in training; at test time log(T)/log(T_train) keeps the softmax as sharp
// over T keys as over T_train (Chiang & Cholak 2022). Leaves out dropout and key-value caching.
#pragma once
#include "nn/linear.hpp"
#include "nn/position.hpp"

namespace wai {

class CausalSelfAttention : public Module {
public:
    CausalSelfAttention(int64_t dim, int64_t heads, const PositionEncoding& position, Generator& generator);
    Value forward(const Value& x) const;  // (B, T, D) -> (B, T, D)
    // The attention weights of the last forward, (B, NH, T, T), kept only when asked (for pictures).
    mutable Tensor last_weights;
    bool keep_weights = false;

    int64_t dim, heads, head_dim;
    float score_scale = 1.0f;
    const PositionEncoding& position;
    Linear qkv, output;  // D -> 3D, D -> D
};

// The attention formula as plain ops: softmax(factor * q k^T + bias, causal) v, with q, k, v
// (B, NH, T, H) and bias (NH, T, T) or undefined -> (B, NH, T, H); weights, when given, receives the
// softmax (B, NH, T, T). CausalSelfAttention calls it; tests and lessons hold other forms to it.
Value attention(const Value& q, const Value& k, const Value& v, const Value& bias, float factor,
                Tensor* weights = nullptr);

}  // namespace wai
