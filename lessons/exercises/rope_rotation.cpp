// Exercise: RoPE's rotation, the course's exercise (LLM Mastery 23, "Exercise"):
//   "Compute q_rot for a query vector at position i=3 and a key vector at position j=3 versus a query at
//    i=3 and key at j=103 [...] using the same original vector for query and key. Then repeat with
//    i=13, j=13 and i=13, j=113 [...]. Confirm the two dot-product pairs are equal."
// Write your code in the one marked place below, then `make exercise EXERCISE=rope_rotation` (or
// `make exercises` for the board). Once solved, `make exercise-train EXERCISE=rope_rotation` trains
// the chapter's model with your rotation as its RoPE.
// What you have: wai::Tensor (tensor/tensor.hpp): Tensor x(Shape{T, H}) is a (T, H) block of zeros,
// x.size(0) and x.size(1) are T and H, and x(t, c) is the number at row t, column c (an index past
// the end stops with the shape and the index). rope_angles(head_dim, seq_len) gives (T, H/2) angles.
// Leaves out the answer: lesson 06 is the worked solution, if you are stuck.
#include <cmath>

#include "lessons/exercises/rope_rotation.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// x (T, H), angles (T, H/2) -> (T, H). As the course's apply_rope does it:
//   x1, x2 = x[..., ::2], x[..., 1::2]            the even and the odd columns
//   rotated_even = x1 * cos - x2 * sin
//   rotated_odd  = x1 * sin + x2 * cos
//   stack([rotated_even, rotated_odd], -1).flatten(-2)   back in place: even i at 2i, odd i at 2i + 1
Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    exercise::not_written_yet(x, angles);  // delete this line, and write the rotation
}

// The four dot products. `vector` (H) is both the query and the key: put it on every row of a
// sequence long enough for position 113, rotate it with apply_rope, and dot the rows you need.
RopeScores exercise_scores(const Tensor& vector) {
    exercise::not_written_yet(vector);  // delete this line, and compute the scores
}

// ==== END OF YOUR CODE ==========================================================================
