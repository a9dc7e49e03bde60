// The paper's ramp over r and its blended frequencies, from the formulas in yarn_paper.hpp.
// Leaves out the temperature (yarn.cpp) and applying it (positional/context_extension.cpp).
#include "positional/yarn_paper.hpp"

#include <cstddef>
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

std::vector<double> yarn_paper_frequencies(const std::vector<double>& frequencies, double s, int64_t train_length,
                                           const YarnRamp& ramp) {
    const std::vector<double> turns = yarn_turns_within(frequencies, train_length);
    std::vector<double> blended(frequencies.size());
    for (size_t i = 0; i < frequencies.size(); ++i) {
        const double gamma = yarn_ramp(turns[i], ramp);
        blended[i] = (1.0 - gamma) * frequencies[i] / s + gamma * frequencies[i];
    }
    return blended;
}

}  // namespace wai
