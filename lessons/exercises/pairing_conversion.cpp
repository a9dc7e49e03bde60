// Exercise: the pairing trap, from Where Am I?, "RoPE: rotate, so only the difference counts":
//   "which dimensions form a pair is a convention. The code here pairs 2i with 2i + 1, as the RoFormer
//    paper does; many implementations, including Hugging Face's Llama (rotate_half), pair dimension i
//    with i + H/2. The two are the same up to a fixed reordering of dimensions, which the trained
//    weights absorb, but mixing the conventions with pretrained weights silently breaks the model."
// Write the fixed reordering, then apply it to a model's weights, so that a model trained with
// interleaved pairs gives the same logits with half-split ones. Lesson 07 (lessons/07_pairing_trap.cpp)
// shows the trap and the repair; it is the worked solution, once you have tried.
// Write your code in the one marked place below, then `make exercise EXERCISE=pairing_conversion`
// (or `make exercises` for the board).
// What you have: wai::Tensor (tensor/tensor.hpp): weight.size(0) and weight.size(1) are 3D and D,
// weight(r, c) the number at row r, column c, bias(r) the bias of row r (an index past the end stops
// with the shape and the index); a Tensor is a value: `const Tensor old = weight;` copies the numbers.
#include "lessons/exercises/pairing_conversion.hpp"

using wai::Tensor;

// ==== YOUR CODE: from here to the end marker ===================================================

// (H): half-split pair i sits at (i, i + H/2), interleaved pair i at (2i, 2i + 1). Which interleaved
// dimension goes to half-split position j?
std::vector<int64_t> half_split_from_interleaved(int64_t head_dim) {
    exercise::not_written_yet(head_dim);  // delete this line, and write the reordering
}

// weight (3D, D), bias (3D): the query rows and the key rows of every head reordered by `order`.
// Which rows make what RoPE turns, and which bias entries go with them?
void convert_qkv_to_half_split(Tensor& weight, Tensor& bias, int64_t head_dim, const std::vector<int64_t>& order) {
    exercise::not_written_yet(weight, bias, head_dim, order);  // delete this line, and write the conversion
}

// ==== END OF YOUR CODE ==========================================================================
