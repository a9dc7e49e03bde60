// The linear op: y = x W^T + b, one op instead of matmul then add, so the bias is written into the
// output first and the gemm accumulates onto it (no zero-filled output, no second pass to add b).
// It computes exactly what matmul(x, W, false, true) followed by add(., b) computes; a test holds
// it to that. Leaves out a bias-free variant.
#include <algorithm>

#include "autograd/ops.hpp"
#include "tensor/gemm.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct Linear final : Op {
    // x (..., in), weight (out, in), bias (out) -> (..., out)
    static Value forward(const Value& x, const Value& weight, const Value& bias) {
        const Shape& s = x.shape();
        const Shape& w = weight.shape();
        if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]})
            shape_error("linear", s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                        "expects x (..., in), weight (out, in) and bias (out)");
        const int64_t rows = s.rows(), in = w[1], out = w[0];
        Tensor y = Tensor::uninitialized(s.with_last(out));
        for (int64_t r = 0; r < rows; ++r) std::copy_n(bias.value().data(), out, y.data() + r * out);
        sgemm(false, true, rows, out, in, 1.0f, x.value().data(), weight.value().data(), 1.0f, y.data());
        return record("linear", std::move(y), {x, weight, bias}, std::make_unique<Linear>());
    }

    // With G = dY seen as (rows, out) and X as (rows, in):
    //   dx += G W;  dW += G^T X;  db += column sums of G
    void apply(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t in = weight.shape()[1], outputs = weight.shape()[0], rows = x.shape().rows();
        const float* g = out.grad.data();
        if (x.requires_grad() && x.has_grad()) {
            sgemm(false, false, rows, in, outputs, 1.0f, g, weight.value().data(), 1.0f, x.grad_buffer().data());
        } else if (x.requires_grad()) {
            Tensor dx = Tensor::uninitialized(x.shape());
            sgemm(false, false, rows, in, outputs, 1.0f, g, weight.value().data(), 0.0f, dx.data());
            x.accumulate_grad(std::move(dx));
        }
        if (weight.requires_grad())
            sgemm(true, false, outputs, in, rows, 1.0f, g, x.value().data(), 1.0f, weight.grad_buffer().data());
        if (bias.requires_grad()) {
            float* db = bias.grad_buffer().data();
            for (int64_t r = 0; r < rows; ++r)
                #pragma omp simd
                for (int64_t j = 0; j < outputs; ++j) db[j] += g[r * outputs + j];
        }
    }
};

}  // namespace

Value linear(const Value& x, const Value& weight, const Value& bias) { return Linear::forward(x, weight, bias); }

}  // namespace wai
