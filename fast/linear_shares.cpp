// The input's and the weight's shares of a linear layer's gradient (linear_shares.hpp).
#include "fast/linear_shares.hpp"

#include "tensor/gemm.hpp"

namespace wai::fast {

void add_linear_shares(const float* g, Value& x, Value& weight) {
    const int64_t out = weight.shape()[0], in = weight.shape()[1], rows = x.shape().rows();
    if (x.requires_grad()) {
        Tensor dx = Tensor::uninitialized(x.shape());
        sgemm(false, false, rows, in, out, 1.0f, g, weight.value().data(), 0.0f, dx.data());
        x.accumulate_grad(std::move(dx));
    }
    if (weight.requires_grad()) {
        Tensor dw = Tensor::uninitialized(weight.shape());
        sgemm(true, false, out, in, rows, 1.0f, g, x.value().data(), 0.0f, dw.data());
        weight.accumulate_grad(std::move(dw));
    }
}

}  // namespace wai::fast
