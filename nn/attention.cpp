// CausalSelfAttention: the chapter's attention as a chain of autograd ops, whose backwards make its
// backward. Leaves out a key-value cache.
#include "nn/attention.hpp"

#include <cmath>

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
Value split_heads(const Value& x, int64_t heads) {
    if (heads == 1) return x;
    const Shape& s = x.shape();
    const int64_t B = s[0], T = s[1], H = s[2] / heads;
    return transpose(reshape(x, Shape{B, T, heads, H}), 1, 2);
}

// (B, NH, T, H) -> (B, T, NH*H); with one head, (B, T, H) stays as it is.
Value merge_heads(const Value& x, int64_t heads) {
    if (heads == 1) return x;
    const Shape& s = x.shape();
    const int64_t B = s[0], NH = s[1], T = s[2], H = s[3];
    return reshape(transpose(x, 1, 2), Shape{B, T, NH * H});
}

// softmax(factor * q k^T + bias, causal) v, op by op: q, k, v (B, NH, T, H), bias (NH, T, T) or
// undefined -> (B, NH, T, H). The causal mask is the softmax's: query t sees keys 0..t.
Value attention(const Value& q, const Value& k, const Value& v, const Value& bias, float factor, Tensor* weights) {
    Value scores = scale(matmul(q, k, /*trans_a=*/false, /*trans_b=*/true), factor);  // (B, NH, T, T)
    if (bias.defined()) scores = add(scores, bias);                                     // + (NH, T, T) on every batch entry
    const Value p = softmax(scores, /*causal=*/true);                                   // (B, NH, T, T)
    if (weights) *weights = p.value();
    return matmul(p, v);  // (B, NH, T, H)
}

void CausalSelfAttention::check_input(const Value& x) const {
    const Shape& s = x.shape();
    if (s.rank() != 3 || s[2] != dim)
        shape_error("CausalSelfAttention", s.str(), "expects (B, T, " + std::to_string(dim) + ")");
}

Value CausalSelfAttention::forward(const Value& x, const ForwardOptions& options) const {
    check_input(x);
    const int64_t B = x.shape()[0], T = x.shape()[1];
    // q, k, v = qkv(x) split in three along the last axis: 3 x (B, T, D)
    const std::vector<Value> qkv_parts = split_last(qkv.forward(x), 3);
    const PositionEncoding& scheme = options.position ? *options.position : position;
    const Value q = scheme.rotate_queries_keys(split_heads(qkv_parts[0], heads));  // (B, NH, T, H)
    const Value k = scheme.rotate_queries_keys(split_heads(qkv_parts[1], heads));  // (B, NH, T, H)
    const Value v = scheme.transform_values(split_heads(qkv_parts[2], heads));       // (B, NH, T, H)

    Value bias = scheme.score_bias(heads, T);  // (NH, T, T), or undefined
    if (bias.defined() && heads == 1) bias = reshape(bias, Shape{T, T});
    // score_scale is 1 in training, log(T) / log(T_train) when a test asks for log-length scaling.
    const float factor = options.score_scale / std::sqrt(static_cast<float>(head_dim));
    Tensor weights;
    Tensor* kept = options.attention_weights ? &weights : nullptr;
    const Value attended = attention(q, k, v, bias, factor, kept);  // (B, NH, T, H)
    if (kept) options.attention_weights->push_back(weights.reshaped(Shape{B, heads, T, T}));
    return output.forward(merge_heads(scheme.transform_attended(attended), heads));  // (B, T, D)
}

}  // namespace wai
