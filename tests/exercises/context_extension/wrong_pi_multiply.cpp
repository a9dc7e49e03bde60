// A wrong answer: position interpolation multiplying every frequency by s.
// expect: 1 | ^context_extension: wrong answer: interpolated_frequencies \(H = 64, base 10000, s = 4\): first differs at pair 0: expected 0.25, got 4; hint: every pair is multiplied by s
#include <cmath>

#include "lessons/exercises/context_extension.hpp"

std::vector<double> interpolated_frequencies(int64_t head_dim, double base, double s) {
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        theta[i] = std::pow(base, -2.0 * i / head_dim);
        theta[i] *= s;
    }
    return theta;
}

std::vector<double> ntk_frequencies(int64_t head_dim, double base, double s) {
    const double H = static_cast<double>(head_dim), new_base = base * std::pow(s, H / (H - 2.0));
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) theta[i] = std::pow(new_base, -2.0 * i / H);
    return theta;
}
