// A wrong answer: the plain length ratio T / T_train.
// expect: 1 | ^log_length_scale: wrong answer: log_length_factor\(128, 32\): expected 1.4, got 4; hint: that is T / T_train, linear
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return t / l;
}
