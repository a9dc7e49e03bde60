// The context extension exercise (LLM Mastery 23, "Failure mode: context-length extrapolation":
// position interpolation and NTK-aware scaling, "rescaling RoPE's frequency base after the fact"):
// what you write in context_extension.cpp, which the checker (check/context_extension.cpp) calls and
// puts into a trained RoPE model's frequencies (RotaryPositions::frequencies, positional/rope.hpp).
// Leaves out the answer: positional/position_interpolation.hpp and positional/ntk_scaling.hpp are the
// library's, once you have tried; and YaRN (positional/yarn.hpp), which lesson 11 also shows.
#pragma once
#include <cstdint>
#include <vector>

#include "lessons/exercises/marked_place.hpp"

// Yours: position interpolation by s >= 1: position m is read as m / s, which turns pair i by
// (m / s) theta_i, theta_i = base^(-2i/H). -> (H/2): the new frequency of every pair.
std::vector<double> interpolated_frequencies(int64_t head_dim, double base, double s);

// Yours: NTK-aware scaling by s >= 1: theta_i = b'^(-2i/H) with a larger base b' = base * s^k, the
// power k chosen so that the last pair (i = H/2 - 1) turns exactly s times slower. -> (H/2)
std::vector<double> ntk_frequencies(int64_t head_dim, double base, double s);
