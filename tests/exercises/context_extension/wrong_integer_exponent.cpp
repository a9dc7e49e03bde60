// A wrong answer: NTK's exponent -2i/H divided in integers, so every pair keeps pair 0's frequency.
// expect: 1 | ^context_extension: wrong answer: ntk_frequencies \(H = 64, .*first differs at pair 1: .*hint: every pair has frequency 1, as pair 0 does: -2i/H is an integer division
#include <cmath>

#include "lessons/exercises/context_extension.hpp"

std::vector<double> interpolated_frequencies(int64_t head_dim, double base, double s) {
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        theta[i] = std::pow(base, -2.0 * i / head_dim);
        theta[i] /= s;
    }
    return theta;
}

std::vector<double> ntk_frequencies(int64_t head_dim, double base, double s) {
    const double H = static_cast<double>(head_dim), new_base = base * std::pow(s, H / (H - 2.0));
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) theta[i] = std::pow(new_base, static_cast<double>(-2 * i / head_dim));
    return theta;
}
