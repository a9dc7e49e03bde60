// CausalSelfAttention: the forward as a chain of autograd ops; their backwards make its backward.
// The scores, softmax and weighted sum are one fused op (autograd/causal_attention.cpp), whose
// reference beside it spells them out as plain ops. Leaves out a key-value cache.
#include "nn/attention.hpp"

#include <cmath>

#include "autograd/ops.hpp"

namespace wai {

CausalSelfAttention::CausalSelfAttention(int64_t d, int64_t nh, const PositionEncoding& p, Generator& generator)
    : dim(d), heads(nh), head_dim(nh > 0 ? d / nh : 0), position(p), qkv(d, 3 * d, generator), output(d, d, generator) {
    if (nh <= 0 || d % nh != 0)
        throw std::invalid_argument("CausalSelfAttention: " + std::to_string(nh) + " heads do not divide the width " +
                                    std::to_string(d));
    register_module("qkv", qkv);
    register_module("output", output);
}

// (B, T, NH*H) -> (B, NH, T, H). With one head, (B, T, H) already is (B, 1, T, H) without the 1, and
// every op after this (rope, matmul, softmax) works on (..., T, H): no copy is made.
static Value split_heads(const Value& x, int64_t heads) {
    if (heads == 1) return x;
    const Shape& s = x.shape();
    const int64_t B = s[0], T = s[1], H = s[2] / heads;
    return transpose(reshape(x, Shape{B, T, heads, H}), 1, 2);
}

// (B, NH, T, H) -> (B, T, NH*H); with one head, (B, T, H) stays as it is.
static Value merge_heads(const Value& x, int64_t heads) {
    if (heads == 1) return x;
    const Shape& s = x.shape();
    const int64_t B = s[0], NH = s[1], T = s[2], H = s[3];
    return reshape(transpose(x, 1, 2), Shape{B, T, NH * H});
}

Value CausalSelfAttention::forward(const Value& x) const {
    const Shape& s = x.shape();
    if (s.rank() != 3 || s[2] != dim)
        shape_error("CausalSelfAttention", s.str(), "expects (B, T, " + std::to_string(dim) + ")");
    const int64_t T = s[1];
    // q, k, v = qkv(x) split in three along the last axis; each third computed on its own, which
    // gives the same numbers without building (B, T, 3D) and copying it apart.
    const Value q = position.rotate_queries_keys(split_heads(qkv.forward_outputs(x, 0, dim), heads));        // (B, NH, T, H)
    const Value k = position.rotate_queries_keys(split_heads(qkv.forward_outputs(x, dim, dim), heads));      // (B, NH, T, H)
    const Value v = split_heads(qkv.forward_outputs(x, 2 * dim, dim), heads);                                // (B, NH, T, H)

    Value bias = position.score_bias(heads, T);  // (NH, T, T), or undefined
    if (bias.defined() && heads == 1) bias = reshape(bias, Shape{T, T});
    // softmax(score_scale * q k^T / sqrt(H) + bias, causal) v, slice by slice in one fused op;
    // causal_attention_reference (autograd/causal_attention.cpp) is the same as a chain of plain ops.
    const float factor = score_scale / std::sqrt(static_cast<float>(head_dim));
    Tensor* weights = keep_weights ? &last_weights : nullptr;
    const Value attended = causal_attention(q, k, v, bias, factor, weights);  // (B, NH, T, H)
    if (keep_weights) last_weights = last_weights.reshaped(Shape{s[0], heads, T, T});
    return output.forward(merge_heads(attended, heads));  // (B, NH, T, H) -> (B, T, D) -> (B, T, D)
}

}  // namespace wai
