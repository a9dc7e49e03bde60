// A right answer to the log-length scaling exercise.
// expect: 0 | ^log_length_scale: solved$ | \[ok\] lesson 09 | \[ok\] seen at 128
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

double log_length_factor(int64_t T, int64_t train_length) {
    const double t = static_cast<double>(T), l = static_cast<double>(train_length);
    return std::log(t) / std::log(l);
}
