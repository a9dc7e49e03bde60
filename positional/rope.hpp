// RoPE (Su et al. 2021): rotate each pair of query and key dimensions by position * theta_i, with
// theta_i = base^(-2i/H), so the score of a query at m and a key at n depends only on n - m.
// Pairing convention: interleaved (2i, 2i+1) as in the RoFormer paper and the chapter, the default;
// half-split (i, i + H/2) as in Hugging Face's Llama (rotate_half), for the lesson on conventions.
// The rotation is an autograd op.
// Leaves out rotating values (RoPE never does) and partial rotary dimensions.
#pragma once
#include <vector>

#include "nn/position.hpp"

namespace wai {

enum class RopePairing { interleaved, half_split };

// theta_i = base^(-2i/H) for i = 0 .. H/2 - 1
std::vector<double> rope_frequencies(int64_t head_dim, double base);

// cos and sin of position * theta_i for positions 0..T-1: what the rotation reads.
struct RopeTable {
    int64_t positions = 0, pairs = 0;
    RopePairing pairing = RopePairing::interleaved;
    std::vector<float> cos, sin;  // (T, H/2) each
};
RopeTable make_rope_table(int64_t positions, const std::vector<double>& frequencies, RopePairing pairing,
                          double position_scale = 1.0);

// x (..., T, H) -> (..., T, H), row t rotated by t * theta_i (by -t * theta_i when inverse).
Tensor rope_rotate(const Tensor& x, const RopeTable& table, bool inverse = false);
// The same rotation applied to x where it lies (the backward turns its incoming gradient this way).
void rope_rotate_inplace(Tensor& x, const RopeTable& table, bool inverse = false);

// The differentiable op: x (..., T, H) -> (..., T, H).
Value rope(const Value& x, const RopeTable& table);

class RotaryPositions : public PositionEncoding {
public:
    RotaryPositions(int64_t head_dim, double base, RopePairing pairing = RopePairing::interleaved);
    // With frequencies of its own (H/2 of them) and a factor on the rotated queries and keys: how a
    // context extension builds its RoPE for a test (positional/context_extension.hpp).
    RotaryPositions(int64_t head_dim, double base, RopePairing pairing, std::vector<double> frequencies,
                    float query_key_scale);
    Value rotate_queries_keys(const Value& x) const override;  // (B, NH, T, H) -> (B, NH, T, H)
    std::string spec() const override;

    const int64_t head_dim;
    const double base;
    const RopePairing pairing;
    // theta_i (H/2): rope_frequencies(head_dim, base), or a context extension's; spec() names the
    // scheme by its base either way.
    const std::vector<double> frequencies;
    // The rotated queries and keys are multiplied by this: 1, or YaRN's attention temperature.
    const float query_key_scale = 1.0f;
};

}  // namespace wai
