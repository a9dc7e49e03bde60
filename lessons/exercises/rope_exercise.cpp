// The RoPE exercise, yours to fill in. From llm-mastery-23:
//   "Compute q_rot for a query vector at position i=3 and a key vector at position j=3 versus a query at
//    i=3 and key at j=103 [...] using the same original vector for query and key. Then repeat with
//    i=13, j=13 and i=13, j=113 [...]. Confirm the two dot-product pairs are equal."
// Write your code in the one marked place below, then run `make exercises`: it builds this file with
// the checker and says "not solved yet", what is wrong (where, by how much), or "solved".
// Leaves out the answer: lessons/06_rope_exercise.cpp is the worked solution, if you are stuck.
//
// What you have: wai::Tensor (tensor/tensor.hpp). Tensor x(Shape{T, H}) is a (T, H) block of zeros,
// x.size(0) and x.size(1) are T and H, and x[t * H + c] is the number at row t, column c. And
// rope_angles(head_dim, seq_len) from rope_exercise.hpp, the course's function: (T, H/2) angles.
#include "lessons/exercises/rope_exercise.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// x (T, H), angles (T, H/2) -> (T, H). As the course's apply_rope does it:
//   x1, x2 = x[..., ::2], x[..., 1::2]            the even and the odd columns
//   rotated_even = x1 * cos - x2 * sin
//   rotated_odd  = x1 * sin + x2 * cos
//   stack([rotated_even, rotated_odd], -1).flatten(-2)   back in place: even i at 2i, odd i at 2i + 1
Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    (void)x, (void)angles;  // delete this line once you use them
    return Tensor();        // replace: an undefined Tensor means "not written yet"
}

// The four dot products. `vector` (H) is both the query and the key: put it on every row of a
// sequence long enough for position 113, rotate with apply_rope, and dot the rows you need.
RopeScores exercise_scores(const Tensor& vector) {
    (void)vector;  // delete this line once you use it
    RopeScores scores;  // each starts as NaN, "not computed yet"
    // scores.query3_key3 = ...;
    // scores.query3_key103 = ...;
    // scores.query13_key13 = ...;
    // scores.query13_key113 = ...;
    return scores;
}

// ==== END OF YOUR CODE ==========================================================================
