// The RoPE rotation exercise (LLM Mastery 23, "Exercise"): what you write in rope_rotation.cpp, which
// the checker (check/rope_rotation.cpp) and the training run (train/rope_rotation.cpp) call. The
// course's rope_angles is given, as the course gives it (lessons/course_rope.hpp).
// Leaves out the answer: lesson 06 is the worked solution, once you have tried.
#pragma once
#include <cstdint>

#include "lessons/course_rope.hpp"
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

using course::rope_angles;  // rope_angles(head_dim, seq_len) -> (T, H/2), in float32 as the course's

// Yours: x (T, H), angles (T, H/2) -> (T, H): row t of x rotated by row t of angles, pairs (2i, 2i+1).
wai::Tensor apply_rope(const wai::Tensor& x, const wai::Tensor& angles);

// Yours: the four dot products of the exercise, with one vector as both query and key.
struct RopeScores {
    double query3_key3 = 0, query3_key103 = 0, query13_key13 = 0, query13_key113 = 0;
};
RopeScores exercise_scores(const wai::Tensor& vector);  // vector (H)
