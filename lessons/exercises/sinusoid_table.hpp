// The sinusoid table exercise (Where Am I?, "Adding position to the tokens"): what you write in
// sinusoid_table.cpp, which the checker (check/sinusoid_table.cpp) compares with the library's table
// and the training run (train/sinusoid_table.cpp) adds to the token embeddings of the chapter's model.
// Leaves out the answer: lesson 03 prints and measures the library's table.
#pragma once
#include <cstdint>

#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// Yours: (positions, dim) -> (T, D) with T = positions, D = dim (even): row p is position p's vector,
//   pe[p, 2i] = sin(p * 10000^(-2i/D)),  pe[p, 2i+1] = cos(p * 10000^(-2i/D)).
wai::Tensor sinusoid_table(int64_t positions, int64_t dim);
