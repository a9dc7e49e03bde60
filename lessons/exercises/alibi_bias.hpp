// The ALiBi exercise (Where Am I?, "Penalizing distance: ALiBi"): what you write in alibi_bias.cpp,
// which the checker (check/alibi_bias.cpp) compares with the library's ALiBi and the training run
// (train/alibi_bias.cpp) adds to the attention scores of the chapter's model.
// Leaves out the answer: lesson 04 prints and measures the library's penalty.
#pragma once
#include <cstdint>
#include <vector>

#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// Yours: NH -> NH slopes, a geometric sequence: head k (k = 1..NH, at index k - 1) gets 2^(-8k/NH);
// for 8 heads 1/2, 1/4, ..., 1/256.
std::vector<double> alibi_slopes(int64_t heads);

// Yours: slopes (NH), T -> (NH, T, T), added to the scores before the causal softmax. Entry [h, m, n],
// for query m and key n <= m, is -slopes[h] * (m - n): 0 on the diagonal, more negative the farther
// back the key. Above the diagonal (n > m) the mask hides the key; write 0 there, as the library does.
wai::Tensor alibi_bias(const std::vector<double>& slopes, int64_t T);
