// Linear: the rows of x, however many leading dimensions, go through a single gemm.
// Leaves out a bias-free variant.
#include "nn/linear.hpp"

#include "autograd/ops.hpp"
#include "nn/init.hpp"

namespace wai {

Linear::Linear(int64_t in, int64_t out, Generator& generator) : in_features(in), out_features(out) {
    weight = register_parameter("weight", linear_init({out, in}, in, generator));
    bias = register_parameter("bias", linear_init({out}, in, generator));
}

Value Linear::forward(const Value& x) const {
    const Shape& s = x.shape();
    if (s.rank() == 0 || s.last() != in_features)
        shape_error("Linear", s.str() + " x " + weight.shape().str() + "T",
                    "the last dimension must be in_features = " + std::to_string(in_features));
    // One gemm over all of x's rows, (..., in) x (out, in)^T, onto rows that start as the bias.
    return linear(x, weight, bias);  // (..., out)
}

}  // namespace wai
