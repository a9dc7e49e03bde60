// fast::linear_onto: add(residual, linear(x, W, b)), the sum a residual branch of a Transformer
// block ends with, as one op. The forward makes the product and adds the bias and the residual onto
// it in one pass, in the plain chain's order (the same numbers); the backward makes the layer's
// products from the incoming gradient, then hands that same gradient to the residual as its share,
// moved rather than copied. That is a pass and a result tensor fewer forward, and two copies of the
// gradient fewer backward, than the plain linear then add.
// A test holds it to add then linear. Leaves out a residual that broadcasts: it has the output's shape.
#include "fast/fast_ops.hpp"
#include "fast/linear_shares.hpp"
#include "tensor/elementwise.hpp"
#include "tensor/gemm.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

struct LinearOnto final : Op {
    // residual (..., out), x (..., in), weight (out, in), bias (out) -> (..., out):
    //   y = x W^T, then y = residual + (b + y) row by row: the plain chain's sums in its order
    static Value forward(const Value& residual, const Value& x, const Value& weight, const Value& bias) {
        const int64_t rows = x.shape().rows(), in = weight.shape()[1], out = weight.shape()[0];
        Tensor y = Tensor::uninitialized(residual.shape());
        float* yd = y.data();
        sgemm(false, true, rows, out, in, 1.0f, x.value().data(), weight.value().data(), 0.0f, yd);
        const float* r = residual.value().data();
        const float* b = bias.value().data();
        for (int64_t i = 0; i < rows; ++i)
            #pragma omp simd
            for (int64_t j = 0; j < out; ++j) yd[i * out + j] = r[i * out + j] + (b[j] + yd[i * out + j]);
        return record("linear_onto", std::move(y), {residual, x, weight, bias}, std::make_unique<LinearOnto>());
    }

    // With G = dY as (rows, out) and X as (rows, in):
    //   dresidual += G;  dx = G W;  dW += G^T X;  db += the column sums of G
    void backward(Node& node) override {
        Value& residual = node.parents[0];
        Value& x = node.parents[1];
        Value& weight = node.parents[2];
        Value& bias = node.parents[3];
        Tensor g = take_incoming_grad(node);
        add_linear_shares(g.data(), x, weight);
        if (bias.requires_grad()) {  // summed from zero and handed over once, as the plain op does
            Tensor db(bias.shape());
            sum_leading_into(db, g);
            bias.accumulate_grad(std::move(db));
        }
        if (residual.requires_grad()) residual.accumulate_grad(std::move(g));  // last: the products above read g
    }
};

}  // namespace

Value linear_onto(const Value& residual, const Value& x, const Value& weight, const Value& bias) {
    const Shape& s = x.shape();
    const Shape& w = weight.shape();
    if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]} ||
        residual.shape() != s.with_last(w[0]))
        shape_error("linear_onto", residual.shape().str() + " + " + s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                    "expects residual (..., out), x (..., in), weight (out, in) and bias (out)");
    return LinearOnto::forward(residual, x, weight, bias);
}

}  // namespace wai::fast
