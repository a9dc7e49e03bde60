// A wrong answer: 1 + log(T / T_train), the log of the ratio instead of the ratio of the logs.
// expect: 1 | ^log_length_scale: wrong answer: log_length_factor\(128, 32\): expected 1.4, got 2.38629; hint: that is 1 \+ log\(T / T_train\)
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return 1.0 + std::log(t / l);
}
