// YaRN's correction range, per-pair ramp, blended frequencies and temperature, from the formulas in
// yarn.hpp. Leaves out everything else about applying it (positional/context_extension.cpp).
#include "positional/yarn.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "positional/rope.hpp"

namespace wai {

double yarn_correction_dim(double turns, int64_t head_dim, double base, int64_t train_length) {
    return static_cast<double>(head_dim) * std::log(static_cast<double>(train_length) / (turns * 2.0 * std::numbers::pi)) /
           (2.0 * std::log(base));
}

YarnCorrectionRange yarn_correction_range(int64_t head_dim, double base, int64_t train_length, const YarnBetas& betas) {
    if (train_length <= 0) throw std::invalid_argument("yarn needs the training length, got " + std::to_string(train_length));
    YarnCorrectionRange range;
    range.low = std::max(std::floor(yarn_correction_dim(betas.fast, head_dim, base, train_length)), 0.0);
    range.high = std::min(std::ceil(yarn_correction_dim(betas.slow, head_dim, base, train_length)),
                          static_cast<double>(head_dim - 1));
    if (range.low == range.high) range.high += 0.001;  // the reference code's guard against dividing by 0
    return range;
}

std::vector<double> yarn_kept_fractions(int64_t head_dim, double base, int64_t train_length, const YarnBetas& betas) {
    const YarnCorrectionRange range = yarn_correction_range(head_dim, base, train_length, betas);
    std::vector<double> kept(static_cast<size_t>(head_dim / 2));
    for (size_t i = 0; i < kept.size(); ++i)
        kept[i] = 1.0 - std::clamp((static_cast<double>(i) - range.low) / (range.high - range.low), 0.0, 1.0);
    return kept;
}

std::vector<double> yarn_frequencies(int64_t head_dim, double base, double s, int64_t train_length, const YarnBetas& betas) {
    const std::vector<double> theta = rope_frequencies(head_dim, base);
    const std::vector<double> kept = yarn_kept_fractions(head_dim, base, train_length, betas);
    std::vector<double> blended(theta.size());
    for (size_t i = 0; i < theta.size(); ++i) blended[i] = theta[i] / s * (1.0 - kept[i]) + theta[i] * kept[i];
    return blended;
}

double yarn_query_key_scale(double s) { return s <= 1.0 ? 1.0 : 0.1 * std::log(s) + 1.0; }

}  // namespace wai
