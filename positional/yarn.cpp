// YaRN's ramp, blended frequencies and temperature, straight from the formulas in yarn.hpp.
// Leaves out everything else about applying it (positional/context_extension.cpp).
#include "positional/yarn.hpp"

#include <cmath>
#include <numbers>

namespace wai {

double yarn_ramp(double r, const YarnRamp& ramp) {
    if (r < ramp.alpha) return 0.0;
    if (r > ramp.beta) return 1.0;
    return (r - ramp.alpha) / (ramp.beta - ramp.alpha);
}

std::vector<double> yarn_turns_within(const std::vector<double>& frequencies, int64_t train_length) {
    std::vector<double> turns;
    for (double theta : frequencies) turns.push_back(static_cast<double>(train_length) * theta / (2.0 * std::numbers::pi));
    return turns;
}

std::vector<double> yarn_frequencies(const std::vector<double>& frequencies, double s, int64_t train_length,
                                     const YarnRamp& ramp) {
    const std::vector<double> turns = yarn_turns_within(frequencies, train_length);
    std::vector<double> blended(frequencies.size());
    for (size_t i = 0; i < frequencies.size(); ++i) {
        const double gamma = yarn_ramp(turns[i], ramp);
        blended[i] = (1.0 - gamma) * frequencies[i] / s + gamma * frequencies[i];
    }
    return blended;
}

double yarn_query_key_scale(double s) { return 0.1 * std::log(s) + 1.0; }

}  // namespace wai
