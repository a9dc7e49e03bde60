// YaRN (Peng, Quesnelle, Fan & Shippole 2023, "YaRN: Efficient Context Window Extension of Large
// Language Models", arXiv:2309.00071) as its authors' code ships it (jquesnelle/yarn,
// LlamaYaRNScaledRotaryEmbedding) and as Hugging Face's _compute_yarn_parameters (rope_type "yarn")
// computes it: "NTK-by-parts" interpolation plus an attention temperature.
// With H the head dimension, theta_i = base^(-2i/H) for pairs i = 0 .. H/2 - 1, and L the training
// length (original_max_position_embeddings), the pair that turns exactly b times within L sits at the
// fractional index
//     d(b) = H ln(L / (2 pi b)) / (2 ln base)                          (find_correction_dim)
// The ramp runs between the pairs for beta_fast = 32 and beta_slow = 1 turns, rounded outwards to
// whole pairs and clamped:
//     low = max(floor(d(32)), 0),  high = min(ceil(d(1)), H - 1),  high += 0.001 if low == high
// and, linear in the pair index i (not in the number of turns), each pair keeps the fraction
//     k_i = 1 - clamp((i - low) / (high - low), 0, 1)
// of its own frequency:
//     theta_i -> (1 - k_i) * theta_i / s + k_i * theta_i.
// Pairs up to low keep theta_i, pairs from high on are interpolated as position interpolation does.
// Then every attention logit is divided by t, with sqrt(1/t) = 0.1 ln(s) + 1, applied as that code
// does: the rotated queries and the rotated keys are each multiplied by 0.1 ln(s) + 1 (Hugging Face
// multiplies cos and sin by it), so every logit is multiplied by (0.1 ln(s) + 1)^2.
// The clamp is the reference code's, to H - 1 (its dim), although the ramp only reads pairs up to
// H/2 - 1. Hugging Face's "truncate" option (default true) is this rounding; truncate = false, which
// keeps d(32) and d(1) unrounded, is left out. The ramp over the number of turns r_i = L / lambda_i
// that the paper prints is the variant yarn-paper (positional/yarn_paper.hpp).
// Leaves out the fine-tuning the paper follows it with, its dynamic-s variant, and the mscale /
// mscale_all_dim attention factors of DeepSeek's configurations.
#pragma once
#include <cstdint>
#include <vector>

namespace wai {

struct YarnBetas {
    double fast = 32.0, slow = 1.0;  // the reference code's and Hugging Face's defaults
};

// d(b) = H ln(L / (2 pi b)) / (2 ln base): the fractional pair index that turns b times within L.
double yarn_correction_dim(double turns, int64_t head_dim, double base, int64_t train_length);

// The ramp's ends in pair indices: low = max(floor(d(beta_fast)), 0), high = min(ceil(d(beta_slow)), H - 1),
// high raised by 0.001 when they meet. Neither is held to the other: when d(1) <= -1 (L well under
// 2 pi), high < low and every pair keeps its frequency.
struct YarnCorrectionRange {
    double low = 0, high = 0;
};
YarnCorrectionRange yarn_correction_range(int64_t head_dim, double base, int64_t train_length, const YarnBetas& betas = {});

// k_i, the fraction of pair i's own frequency it keeps (1 - the reference code's linear_ramp_mask). (H/2)
std::vector<double> yarn_kept_fractions(int64_t head_dim, double base, int64_t train_length, const YarnBetas& betas = {});

// The blended frequencies of rope_frequencies(head_dim, base) for factor s >= 1 (s = 1 returns them
// unchanged). (H/2)
std::vector<double> yarn_frequencies(int64_t head_dim, double base, double s, int64_t train_length,
                                     const YarnBetas& betas = {});

// sqrt(1/t) = 0.1 ln(s) + 1: the factor for the rotated queries and keys each (1 for s <= 1).
double yarn_query_key_scale(double s);

}  // namespace wai
