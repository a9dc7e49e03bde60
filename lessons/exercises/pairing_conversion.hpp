// The pairing conversion exercise (Where Am I?, "RoPE: rotate, so only the difference counts", the
// paragraph "One trap for anyone loading real weights"): what you write in pairing_conversion.cpp,
// which the checker (check/pairing_conversion.cpp) calls. A model trained with interleaved pairs
// (2i, 2i+1) is to run with half-split pairs (i, i + H/2), as Hugging Face's Llama code pairs them.
// Leaves out the answer: lesson 07 (lessons/07_pairing_trap.cpp) is the worked solution, once you have tried.
#pragma once
#include <cstdint>
#include <vector>

#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// Yours: one head's reordering of its H dimensions, (H): position j of the half-split layout holds
// interleaved dimension order[j].
std::vector<int64_t> half_split_from_interleaved(int64_t head_dim);

// Yours: one attention's qkv Linear, weight (3D, D) and bias (3D), converted in place. Rows 0..D-1
// make the queries, D..2D-1 the keys, 2D..3D-1 the values; head h owns rows h*H .. h*H + H - 1 of each
// part. In every head's block of query rows and of key rows, new row j = old row order[j].
void convert_qkv_to_half_split(wai::Tensor& weight, wai::Tensor& bias, int64_t head_dim,
                               const std::vector<int64_t>& order);
