// fast::linear_split: split_last(linear(x, W, b), parts) without the (..., parts * C) tensor between:
// part k is the outputs [k C, (k + 1) C) of the layer, computed from those rows of W and b in place.
// Attention's q, k and v come out of one Linear(D, 3D) this way with no copy to split them apart.
// A test holds it to the plain chain it replaces. Leaves out uneven parts.
#include "fast/fast_ops.hpp"
#include "tensor/gemm.hpp"
#include "tensor/elementwise.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

struct LinearRows final : Op {
    int64_t first, count;  // which outputs (rows of W) this part is
    LinearRows(int64_t f, int64_t c) : first(f), count(c) {}

    // x (..., in), weight (out, in), bias (out) -> (..., count): y = b[first..] on every row, y += x W[first..]^T
    static Value forward(const Value& x, const Value& weight, const Value& bias, int64_t first, int64_t count) {
        const Shape& s = x.shape();
        const int64_t rows = s.rows(), in = weight.shape()[1];
        Tensor y = Tensor::uninitialized(s.with_last(count));
        repeat_row(y.data(), rows, bias.value().data() + first, count);
        sgemm(false, true, rows, count, in, 1.0f, x.value().data(), weight.value().data() + first * in, 1.0f, y.data());
        return record("linear_split", std::move(y), {x, weight, bias}, std::make_unique<LinearRows>(first, count));
    }

    // With G = dY seen as (rows, count) and W, b restricted to the part's rows:
    //   dx += G W;  dW[first..] += G^T X;  db[first..] += the column sums of G
    // Every part adds into x's gradient: the first part to arrive writes it, the others' gemms add
    // onto it (beta = 1), and each part's dW and db land in their own rows of the parameters' gradients.
    void backward(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t in = weight.shape()[1], rows = x.shape().rows();
        const float* g = out.grad.data();
        const float* w = weight.value().data() + first * in;
        if (x.requires_grad() && x.has_grad()) {
            sgemm(false, false, rows, in, count, 1.0f, g, w, 1.0f, x.grad_buffer().data());
        } else if (x.requires_grad()) {
            Tensor dx = Tensor::uninitialized(x.shape());
            sgemm(false, false, rows, in, count, 1.0f, g, w, 0.0f, dx.data());
            x.accumulate_grad(std::move(dx));
        }
        // dW and db of the part are made from zero and then added once into their rows of the
        // parameters' gradients, as the plain op's shares are: made straight onto gradients that
        // already hold something (a second backward), they would round against those sums throughout.
        if (weight.requires_grad()) {
            Tensor dw = Tensor::uninitialized(Shape{count, in});
            sgemm(true, false, count, in, rows, 1.0f, g, x.value().data(), 0.0f, dw.data());
            float* dst = weight.grad_buffer().data() + first * in;
            for (int64_t i = 0; i < count * in; ++i) dst[i] += dw[i];
        }
        if (bias.requires_grad()) {
            Tensor sums(Shape{count});
            sum_leading_into(sums, out.grad);
            float* db = bias.grad_buffer().data() + first;
            for (int64_t j = 0; j < count; ++j) db[j] += sums[j];
        }
    }
};

}  // namespace

std::vector<Value> linear_split(const Value& x, const Value& weight, const Value& bias, int parts) {
    const Shape& s = x.shape();
    const Shape& w = weight.shape();
    if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]})
        shape_error("linear_split", s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                    "expects x (..., in), weight (out, in) and bias (out)");
    if (parts <= 0 || w[0] % parts != 0)
        shape_error("linear_split", w.str(), std::to_string(w[0]) + " outputs do not split into " + std::to_string(parts) +
                                                 " equal parts");
    const int64_t count = w[0] / parts;
    std::vector<Value> out;
    for (int k = 0; k < parts; ++k) out.push_back(LinearRows::forward(x, weight, bias, k * count, count));
    return out;
}

}  // namespace wai::fast
