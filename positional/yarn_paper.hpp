// yarn-paper: YaRN's per-pair blend as the paper prints it (Peng et al. 2023, arXiv:2309.00071,
// section 3.2, "NTK-by-parts"), a variant kept beside the reference code's (positional/yarn.hpp) to
// show where the two part. With theta_i = base^(-2i/H), wavelength lambda_i = 2 pi / theta_i, L the
// training length and r_i = L / lambda_i the number of full turns pair i makes within it, the ramp
//     gamma(r) = 0 if r < alpha,  1 if r > beta,  (r - alpha) / (beta - alpha) otherwise,
// with the paper's alpha = 1, beta = 32, blends each pair between interpolated and untouched:
//     theta_i -> (1 - gamma(r_i)) * theta_i / s + gamma(r_i) * theta_i.
// The ramp is linear in r_i, so geometric in the pair index; the reference code's is linear in the
// pair index between the rounded ends. At a LLaMA's scale (H = 128, L = 4096) the two keep the same
// 21 fastest pairs; at H = 64 and L = 32 the paper's keeps none (pair 0 turns 5.1 times, far below
// beta) and the reference code's keeps pair 0 whole. The temperature is YaRN's (yarn.hpp).
// Leaves out everything yarn.hpp leaves out.
#pragma once
#include <cstdint>
#include <vector>

namespace wai {

struct YarnRamp {
    double alpha = 1.0, beta = 32.0;  // the paper's values for LLaMA
};

// gamma(r): 0 below alpha, 1 above beta, linear between.
double yarn_ramp(double r, const YarnRamp& ramp = {});
// r_i = L / lambda_i = L * theta_i / (2 pi) for each pair. (H/2) -> (H/2)
std::vector<double> yarn_turns_within(const std::vector<double>& frequencies, int64_t train_length);
// The blended frequencies for factor s >= 1 (s = 1 returns them unchanged). (H/2) -> (H/2)
std::vector<double> yarn_paper_frequencies(const std::vector<double>& frequencies, double s, int64_t train_length,
                                           const YarnRamp& ramp = {});

}  // namespace wai
