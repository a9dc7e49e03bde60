// The broadcast-multiply exercise (the engine under the chapter): what you write in
// broadcast_multiply_backward.cpp, which the checker (check/broadcast_multiply_backward.cpp) calls.
// Leaves out the answer: wai::multiply's backward (autograd/arithmetic.cpp), once you have tried.
#pragma once
#include "lessons/exercises/marked_place.hpp"
#include "tensor/tensor.hpp"

// The two shares of y = a * b, b repeated on every row of a.
struct MultiplyGrads {
    wai::Tensor da;  // (..., D): a's shape
    wai::Tensor db;  // (D): b's shape
};

// Yours: a (..., D), b (D), g = d loss / d y (..., D) -> da (..., D), db (D).
MultiplyGrads multiply_backward(const wai::Tensor& a, const wai::Tensor& b, const wai::Tensor& g);
