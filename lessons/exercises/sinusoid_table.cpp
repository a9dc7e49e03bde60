// Exercise: Vaswani's sinusoid table (lesson 03; Where Am I?, "Adding position to the tokens"):
//   "The original Transformer (Vaswani et al., 2017) adds a position vector to each token's embedding
//    before the first layer. Theirs was fixed, made of sinusoids at different frequencies [...] so
//    that each position gets a unique pattern, from fast-changing dimensions that tell neighbors
//    apart to slow ones that change over thousands of positions."
// Each pair of columns (2i, 2i+1) is one frequency, theta_i = 10000^(-2i/D): the sin in the even
// column, the cos in the odd one. Pair 0 turns by one radian a position, the last pair by about
// 1/7500 of a radian (with D = 64).
// Write your code in the one marked place below, then `make exercise EXERCISE=sinusoid_table` (or
// `make exercises` for the board). Once solved, `make exercise-train EXERCISE=sinusoid_table` trains
// the chapter's model with your table added to its token embeddings, beside the library's.
// What you have: wai::Tensor (tensor/tensor.hpp): Tensor pe(Shape{T, D}) is a (T, D) block of
// zeros, and pe(p, c) is the number at row p, column c (an index past the end stops with the shape
// and the index); std::sin, std::cos and std::pow from <cmath>. Work out each angle in double and
// round it once, on the way into the float table, as the library does: then the training run with
// your table gives the library's line to the last digit.
// Leaves out the answer: lesson 03 uses the library's table, if you are stuck.
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// (positions, dim) -> (T, D): pe[p, 2i] = sin(p * 10000^(-2i/D)), pe[p, 2i+1] = cos(the same angle).
Tensor sinusoid_table(int64_t positions, int64_t dim) {
    exercise::not_written_yet(positions, dim);  // delete this line, and fill the table
}

// ==== END OF YOUR CODE ==========================================================================
