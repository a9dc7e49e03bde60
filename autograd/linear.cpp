// The linear op: y = x W^T + b, one op as PyTorch's F.linear is. The bias is written on every row of
// the output first and the product is added onto it. It computes what matmul(x, W, false, true)
// then add(., b) compute; a test holds it to that. Leaves out a bias-free variant.
#include "autograd/ops.hpp"
#include "tensor/gemm.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct LinearOp final : Op {
    // x (..., in), weight (out, in), bias (out) -> (..., out)
    static Value forward(const Value& x, const Value& weight, const Value& bias) {
        const Shape& s = x.shape();
        const Shape& w = weight.shape();
        if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]})
            shape_error("linear", s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                        "expects x (..., in), weight (out, in) and bias (out)");
        const int64_t rows = s.rows(), in = w[1], outputs = w[0];
        Tensor y = Tensor::uninitialized(s.with_last(outputs));
        repeat_row(y.data(), rows, bias.value().data(), outputs);  // y = b on every row
        sgemm(false, true, rows, outputs, in, 1.0f, x.value().data(), weight.value().data(), 1.0f, y.data());  // y += x W^T
        return record("linear", std::move(y), {x, weight, bias}, std::make_unique<LinearOp>());
    }

    // With G = dY seen as (rows, out) and X as (rows, in):
    //   dx = G W;  dW = G^T X;  db = the column sums of G
    void backward(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t outputs = weight.shape()[0], in = weight.shape()[1], rows = x.shape().rows();
        const float* g = out.grad.data();
        if (x.requires_grad()) {
            Tensor dx = Tensor::uninitialized(x.shape());
            sgemm(false, false, rows, in, outputs, 1.0f, g, weight.value().data(), 0.0f, dx.data());
            x.accumulate_grad(std::move(dx));
        }
        if (weight.requires_grad()) {
            Tensor dw = Tensor::uninitialized(weight.shape());
            sgemm(true, false, outputs, in, rows, 1.0f, g, x.value().data(), 0.0f, dw.data());
            weight.accumulate_grad(std::move(dw));
        }
        if (bias.requires_grad()) {
            Tensor db(bias.shape());
            sum_leading_into(db, out.grad);
            bias.accumulate_grad(std::move(db));
        }
    }
};

}  // namespace

Value linear(const Value& x, const Value& weight, const Value& bias) { return LinearOp::forward(x, weight, bias); }

}  // namespace wai
