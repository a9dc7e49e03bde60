// The softmax-backward exercise (Where Am I?, "Attention can't see order": the softmax taken row by
// row): what you write in softmax_backward.cpp, which the checker (check/softmax_backward.cpp) calls,
// and plugs into one training step of the chapter's model as the backward of its every softmax.
// Leaves out the answer: wai::softmax's backward (autograd/softmax.cpp), once you have tried.
#pragma once
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// Yours: y = softmax(x) over the last axis, y and g = d loss / d y both (..., Tk) -> dx (..., Tk).
// Under a causal mask the masked entries of y are exactly 0, and their dx must be 0.
wai::Tensor softmax_backward(const wai::Tensor& y, const wai::Tensor& g);
