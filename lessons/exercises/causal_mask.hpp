// The causal mask exercise (Where Am I?, "Attention can't see order"; LLM Mastery 23, "The claim"):
// what you write in causal_mask.cpp, which the checker (check/causal_mask.cpp) adds to the scores of
// an attention, softmax(q k^T / sqrt(H) + mask) v, to see what the mask does to the chapter's claims.
// Leaves out the answer: lesson 01 shows the same claims with the library's causal softmax.
#pragma once
#include <cstdint>

#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// Yours: T -> (T, T), added to the (T, T) scores before the softmax. Entry [m, n], for query m and
// key n: 0 where query m may see key n (n <= m: itself and the tokens before it), -infinity where it
// may not (n > m: the tokens after it). A large negative number, -1e4 or below (such as -1e9), hides
// a key as well: the softmax's exp of it is exactly 0 in float, as it is of -infinity.
wai::Tensor causal_mask(int64_t T);
