// YaRN (Peng, Quesnelle, Fan & Shippole 2023, "YaRN: Efficient Context Window Extension of Large
// Language Models", arXiv:2309.00071): its "NTK-by-parts" interpolation plus an attention temperature.
// With H the head dimension, theta_i = base^(-2i/H), wavelength lambda_i = 2 pi / theta_i, L the
// training length (the paper's original context) and r_i = L / lambda_i the number of full turns pair
// i makes within it, the ramp
//     gamma(r) = 0 if r < alpha,  1 if r > beta,  (r - alpha) / (beta - alpha) otherwise,
// with the paper's alpha = 1, beta = 32, blends each pair between interpolated and untouched:
//     theta_i -> (1 - gamma(r_i)) * theta_i / s + gamma(r_i) * theta_i.
// A pair that turns more than 32 times within L keeps its frequency; one that turns less than once
// is interpolated as in position interpolation. Then the attention logits are divided by t, with
//     sqrt(1/t) = 0.1 ln(s) + 1.
// Convention used here: the paper's equations with the ramp over r as written (not its reference
// code's rounding of the ramp's ends to whole dimensions), and the temperature applied as that code
// does, by multiplying the rotated queries and the rotated keys each by sqrt(1/t) = 0.1 ln(s) + 1, so
// every logit is multiplied by (0.1 ln(s) + 1)^2.
// Leaves out the fine-tuning the paper follows it with, and its dynamic-s variant.
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
std::vector<double> yarn_frequencies(const std::vector<double>& frequencies, double s, int64_t train_length,
                                     const YarnRamp& ramp = {});
// sqrt(1/t) = 0.1 ln(s) + 1: the factor for the rotated queries and keys each.
double yarn_query_key_scale(double s);

}  // namespace wai
