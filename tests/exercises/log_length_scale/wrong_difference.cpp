// A wrong answer: log T - log T_train, a difference of logs in place of their ratio.
// expect: 1 | ^log_length_scale: wrong answer: log_length_factor\(128, 32\): expected 1.4, got 1.38629; hint: that is log T - log T_train
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return std::log(t) - std::log(l);
}
