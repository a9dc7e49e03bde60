// The log-length scaling exercise (Where Am I?, the discussion of "seen" in "A test: two tasks, four
// times the length", and the table's last column; Chiang & Cholak 2022): what you write in
// log_length_scale.cpp, which the checker (check/log_length_scale.cpp) calls, and sets as the
// attention score scale of a trained model (ForwardOptions::score_scale, nn/attention.hpp).
// Leaves out the answer: positional/length_scaling.hpp is the library's, once you have tried.
#pragma once
#include <cstdint>

#include "lessons/exercises/marked_place.hpp"

// Yours: the factor every attention score is multiplied by when a model trained on train_length
// positions runs on T, so that a softmax over T keys is as sharp as it was over train_length.
double log_length_factor(int64_t T, int64_t train_length);
