// Exercise: log-length scaling, from Where Am I?, "A test: two tasks, four times the length":
//   "With four times as many earlier tokens, the one matching token gets a smaller share of the
//    softmax, and its signal is diluted. The last column tests that: it multiplies every attention
//    score by log 128 / log 32 at test time, changing nothing learned (the factor is 1 at the training
//    length), which keeps the softmax as sharp over 128 tokens as it was over 32. That idea, scaling
//    attention scores by the log of the length, is Chiang and Cholak's (2022)."
// Write the factor for any test length T and training length. Lesson 09 (lessons/09_log_scaling.cpp)
// shows what it does to one attention row; the checker asks your factor the same question, then
// scores a small trained model with it, as the chapter's last column does.
// Write your code in the one marked place below, then `make exercise EXERCISE=log_length_scale` (or
// `make exercises` for the board).
// What you have: std::log (natural log; the base cancels in the ratio), static_cast<double>(T).
#include <cmath>

#include "lessons/exercises/log_length_scale.hpp"

// ==== YOUR CODE: from here to the end marker ===================================================

// T and train_length >= 2 -> the factor; 1 when T == train_length, above 1 for longer tests.
double log_length_factor(int64_t T, int64_t train_length) {
    exercise::not_written_yet(T, train_length);  // delete this line, and write the factor
}

// ==== END OF YOUR CODE ==========================================================================
