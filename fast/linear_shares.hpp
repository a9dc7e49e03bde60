// The input's and the weight's shares of a linear layer's gradient, made as autograd/linear.cpp's
// backward makes them, for the fast ops that end in a linear layer's products (linear_gelu.cpp,
// linear_onto.cpp): each share made from zero, then handed over once. Leaves out the bias's share:
// each op sums it in its own pass.
#pragma once
#include "autograd/value.hpp"

namespace wai::fast {

// With G = dY as (rows, out), x (..., in) and weight (out, in):  dx = G W;  dW = G^T X
void add_linear_shares(const float* g, Value& x, Value& weight);

}  // namespace wai::fast
