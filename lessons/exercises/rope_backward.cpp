// Exercise: RoPE's backward, from Where Am I?, "RoPE: rotate, so only the difference counts":
//   "rotations compose by adding angles and the transpose of a rotation is the rotation backwards."
// The forward turns pair (2i, 2i+1) of row t by phi = angles(t, i):
//   y[2i]     = x[2i] cos phi - x[2i+1] sin phi
//   y[2i + 1] = x[2i] sin phi + x[2i+1] cos phi
// that is, y = J x with the 2 x 2 matrix J = [[cos, -sin], [sin, cos]] for each pair. Given the
// gradient g = dloss/dy, write dloss/dx = J^T g for every pair of every row.
// Lesson 05 (lessons/05_rope.cpp) shows the rotation and why only the distance counts; the library's
// op (positional/rope.cpp, struct Rope) is the answer, once you have tried.
// Write your code in the one marked place below, then `make exercise EXERCISE=rope_backward` (or
// `make exercises` for the board). Once solved, `make exercise-train EXERCISE=rope_backward` trains
// the chapter's model with the library's rotation forward and your backward.
// What you have: wai::Tensor (tensor/tensor.hpp): Tensor g(Shape{T, H}) is a (T, H) block of zeros,
// g.size(0) and g.size(1) are T and H, g(t, c) the number at row t, column c (an index past the end
// stops with the shape and the index); std::cos, std::sin.
#include <cmath>

#include "lessons/exercises/rope_backward.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// grad (T, H), angles (T, H/2) -> (T, H): each pair (grad[2i], grad[2i+1]) of row t multiplied by
// J^T, the transpose of that pair's rotation matrix at angles(t, i).
Tensor rope_backward(const Tensor& grad, const Tensor& angles) {
    exercise::not_written_yet(grad, angles);  // delete this line, and write the backward
}

// ==== END OF YOUR CODE ==========================================================================
