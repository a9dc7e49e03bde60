// A wrong answer: sqrt(T / T_train), by analogy with attention's 1/sqrt(d).
// expect: 1 | ^log_length_scale: wrong answer: log_length_factor\(128, 32\): expected 1.4, got 2; hint: that is sqrt\(T / T_train\)
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return std::sqrt(t / l);
}
