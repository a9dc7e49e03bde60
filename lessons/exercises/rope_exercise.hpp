// The RoPE exercise (llm-mastery-23 "Exercise"): what you write in rope_exercise.cpp, what the checker
// (check_rope_exercise.cpp) calls, and the course's rope_angles, given here as the course gives it.
// Leaves out the checking itself, and the answer (lessons/06_rope_exercise.cpp is the worked solution).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensor/tensor.hpp"

// Given, as in the course: one frequency per pair of dimensions, and every position's angles, in float32.
//   freqs  = 1 / base^(arange(0, H, 2) / H)
//   angles = outer(arange(seq_len), freqs)        -> (T, H/2)
inline wai::Tensor rope_angles(int64_t head_dim, int64_t seq_len, double base = 10000.0) {
    const int64_t pairs = head_dim / 2;
    std::vector<float> freqs(pairs);
    for (int64_t i = 0; i < pairs; ++i)
        freqs[i] = 1.0f / std::pow(static_cast<float>(base), static_cast<float>(2 * i) / static_cast<float>(head_dim));
    wai::Tensor angles(wai::Shape{seq_len, pairs});
    for (int64_t t = 0; t < seq_len; ++t)
        for (int64_t i = 0; i < pairs; ++i) angles[t * pairs + i] = static_cast<float>(t) * freqs[i];
    return angles;
}

// Yours: x (T, H), angles (T, H/2) -> (T, H), row t of x rotated by row t of angles, pairs (2i, 2i+1).
// Returning an undefined Tensor (wai::Tensor()) means "not written yet".
wai::Tensor apply_rope(const wai::Tensor& x, const wai::Tensor& angles);

// Yours: the four dot products, the same vector as query and key. NaN means "not computed yet".
struct RopeScores {
    static constexpr double not_computed = std::numeric_limits<double>::quiet_NaN();
    double query3_key3 = not_computed;
    double query3_key103 = not_computed;
    double query13_key13 = not_computed;
    double query13_key113 = not_computed;
};
RopeScores exercise_scores(const wai::Tensor& vector);  // vector (H)
