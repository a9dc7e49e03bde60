// RoPE (Su et al. 2021): rotate each pair of query and key dimensions by position * theta_i, with
// theta_i = base^(-2i/H), so the score of a query at m and a key at n depends only on n - m.
// Pairing convention: interleaved (2i, 2i+1) as in the RoFormer paper and the chapter, the default;
// half-split (i, i + H/2) as in Hugging Face's Llama (rotate_half), for the lesson on conventions.
// The rotation is an autograd op; rope_rotate_reference is the rotation written out from the definition.
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
// The same rotation written out directly from the definition: angles computed per element, no table.
Tensor rope_rotate_reference(const Tensor& x, double base, RopePairing pairing, bool inverse = false);

// The differentiable op: x (..., T, H) -> (..., T, H).
Value rope(const Value& x, const RopeTable& table);

class RotaryPositions : public PositionEncoding {
public:
    RotaryPositions(int64_t head_dim, double base, RopePairing pairing = RopePairing::interleaved);
    Value rotate_queries_keys(const Value& x) const override;  // (B, NH, T, H) -> (B, NH, T, H)
    std::string spec() const override;

    int64_t head_dim;
    double base;
    RopePairing pairing;
    // theta_i (H/2): rope_frequencies(head_dim, base), unless a context extension replaced them for
    // testing (positional/context_extension.hpp); spec() still names the scheme as trained.
    std::vector<double> frequencies;
    // The rotated queries and keys are multiplied by this: 1, or YaRN's attention temperature.
    float query_key_scale = 1.0f;
};

}  // namespace wai
