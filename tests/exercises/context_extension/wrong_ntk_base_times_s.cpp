// A wrong answer: NTK's new base as base * s, without the power H / (H - 2).
// expect: 1 | ^context_extension: wrong answer: ntk_frequencies \(H = 64, base 10000, s = 4\): first differs at pair 1: .*hint: that is base \* s, the power k = 1 | \[WRONG\] yours divides the last pair
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
    const double H = static_cast<double>(head_dim), new_base = base * s;
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) theta[i] = std::pow(new_base, -2.0 * i / H);
    return theta;
}
