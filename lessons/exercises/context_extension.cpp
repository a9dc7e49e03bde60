// Exercise: stretching a RoPE model's context at test time, from LLM Mastery 23, "Failure mode:
// context-length extrapolation":
//   "This is precisely why "context length extension" techniques exist -- position interpolation,
//    YaRN, ABF -- all of them rescaling RoPE's frequency base after the fact so a model trained at 4K
//    can behave reasonably at 32K without retraining from scratch."
// Write two of them, each as the new frequency of every pair: position interpolation (every pair
// slowed by s) and NTK-aware scaling (a new base: the fast pairs kept, the slowest slowed by s).
// Lesson 11 (lessons/11_context_extension.cpp) prints both for H = 64 and tests them on trained models.
// Write your code in the one marked place below, then `make exercise EXERCISE=context_extension`
// (or `make exercises` for the board): the checker compares your frequencies with the library's,
// then runs a small trained model at 4x its training length with yours and with the library's.
// What you have: std::vector<double> theta(H / 2) (H/2 zeros; theta[i] is pair i's), std::pow.
#include <cmath>

#include "lessons/exercises/context_extension.hpp"

// ==== YOUR CODE: from here to the end marker ===================================================

// (H/2): pair i turns by m * theta_i at position m; read m as m / s instead.
std::vector<double> interpolated_frequencies(int64_t head_dim, double base, double s) {
    exercise::not_written_yet(head_dim, base, s);  // delete this line, and write position interpolation
}

// (H/2): theta_i = b'^(-2i/H), b' = base * s^k. Pair 0 keeps theta_0 = 1 whatever the base; which k
// makes the last pair's theta exactly theta_last / s?
std::vector<double> ntk_frequencies(int64_t head_dim, double base, double s) {
    exercise::not_written_yet(head_dim, base, s);  // delete this line, and write NTK-aware scaling
}

// ==== END OF YOUR CODE ==========================================================================
