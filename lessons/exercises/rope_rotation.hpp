// The RoPE rotation exercise (LLM Mastery 23, "Exercise"): what you write in rope_rotation.cpp, which
// the checker (check/rope_rotation.cpp) and the training run (train/rope_rotation.cpp) call. The
// course's rope_angles is given, as the course gives it (lessons/course_rope.hpp).
// Leaves out the answer: lesson 06 is the worked solution, once you have tried.
#pragma once
#include <cstdint>

#include "lessons/course_rope.hpp"
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

namespace exercise {
// Null but while the checker looks at which rows your exercise_scores dots: then every pair of row t
// is turned by rope_angles_probe(t) more. With RoPE's own angles rows 2 and 102 score exactly as
// rows 3 and 103 (the very invariance of the exercise); with this extra turn, which grows faster
// than the position, they do not, and the checker can name the rows yours took.
inline double (*rope_angles_probe)(int64_t position) = nullptr;
}  // namespace exercise

// rope_angles(head_dim, seq_len) -> (T, H/2): the course's, in float32 (lessons/course_rope.hpp).
inline wai::Tensor rope_angles(int64_t head_dim, int64_t seq_len, double base = 10000.0) {
    wai::Tensor angles = course::rope_angles(head_dim, seq_len, base);
    if (exercise::rope_angles_probe != nullptr)
        for (int64_t t = 0; t < seq_len; ++t)
            for (int64_t i = 0; i < head_dim / 2; ++i) angles(t, i) += static_cast<float>(exercise::rope_angles_probe(t));
    return angles;
}

// Yours: x (T, H), angles (T, H/2) -> (T, H): row t of x rotated by row t of angles, pairs (2i, 2i+1).
wai::Tensor apply_rope(const wai::Tensor& x, const wai::Tensor& angles);

// Yours: the four dot products of the exercise, with one vector as both query and key.
struct RopeScores {
    double query3_key3 = 0, query3_key103 = 0, query13_key13 = 0, query13_key113 = 0;
};
RopeScores exercise_scores(const wai::Tensor& vector);  // vector (H)
