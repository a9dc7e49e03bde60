// The RoPE backward exercise (Where Am I?, "RoPE: rotate, so only the difference counts": "the
// transpose of a rotation is the rotation backwards"): what you write in rope_backward.cpp, which the
// checker (check/rope_backward.cpp) and the training run (train/rope_backward.cpp) call. The course's
// rope_angles is given, as in the RoPE rotation exercise (lessons/course_rope.hpp).
// Leaves out the forward rotation: the library's (positional/rope.hpp) runs it, yours runs backward.
#pragma once
#include <cstdint>

#include "lessons/course_rope.hpp"
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

using course::rope_angles;  // rope_angles(head_dim, seq_len) -> (T, H/2), in float32 as the course's

// Yours: grad (T, H), angles (T, H/2) -> dx (T, H). The forward is y = R x, row t's pair (2i, 2i+1)
// turned by angles(t, i); grad is dloss/dy, and dx = dloss/dx = R^T grad, row by row.
wai::Tensor rope_backward(const wai::Tensor& grad, const wai::Tensor& angles);
