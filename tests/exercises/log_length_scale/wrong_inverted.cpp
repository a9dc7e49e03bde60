// A wrong answer: the ratio upside down, log(T_train) / log(T).
// expect: 1 | ^log_length_scale: wrong answer: log_length_factor\(128, 32\): expected 1.4, got 0.714286; hint: that is log\(T_train\) / log\(T\), upside down
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return std::log(l) / std::log(t);
}
