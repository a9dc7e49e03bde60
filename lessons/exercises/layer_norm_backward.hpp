// The LayerNorm-backward exercise (the engine under the chapter's model, whose every block begins
// with a LayerNorm): what you write in layer_norm_backward.cpp, which the checker
// (check/layer_norm_backward.cpp) calls, and plugs into one training step of the chapter's model.
// Leaves out the answer: wai::layer_norm's backward (autograd/layer_norm.cpp), once you have tried.
#pragma once
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// The three shares of y = weight * (x - mean) / sqrt(var + eps) + bias, over the last axis.
struct LayerNormGrads {
    wai::Tensor dx;       // (..., D): x's shape
    wai::Tensor dweight;  // (D)
    wai::Tensor dbias;    // (D)
};

// Yours: x (..., D), weight (D), eps, g = d loss / d y (..., D) -> dx (..., D), dweight (D), dbias (D).
// mean and var are each row's, var the biased one (divided by D, as PyTorch's LayerNorm does).
LayerNormGrads layer_norm_backward(const wai::Tensor& x, const wai::Tensor& weight, float eps, const wai::Tensor& g);
