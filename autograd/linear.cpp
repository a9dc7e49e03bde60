// The linear op: y = x W^T + b, one op instead of matmul then add, so the bias is written into the
// output first and the gemm accumulates onto it (no zero-filled output, no second pass to add b).
// It can also compute only the outputs [first, first + count) of the layer, reading those rows of W
// and b in place: attention's q, k and v come out of one Linear(D, 3D) this way without computing
// (B, T, 3D) and copying it apart. It computes exactly what matmul(x, W, false, true) then add(., b)
// (then split_last) compute; a test holds it to that. Leaves out a bias-free variant.
#include <algorithm>

#include "autograd/ops.hpp"
#include "tensor/gemm.hpp"

namespace wai {

// out (rows, count) = the row b repeated. Rather than one short copy per row (thousands of calls
// of a few hundred bytes), the rows already written are copied onward, doubling each time.
static void fill_rows(float* out, int64_t rows, const float* b, int64_t count) {
    if (rows == 0) return;
    std::copy_n(b, count, out);
    for (int64_t done = 1; done < rows; done *= 2)
        std::copy_n(out, std::min(done, rows - done) * count, out + done * count);
}

namespace {  // each op type is private to its file

struct Linear final : Op {
    int64_t first, count;  // which outputs (rows of W) this op computes
    Linear(int64_t f, int64_t c) : first(f), count(c) {}

    // x (..., in), weight (out, in), bias (out) -> (..., count), outputs first .. first + count - 1
    static Value forward(const Value& x, const Value& weight, const Value& bias, int64_t first, int64_t count) {
        const Shape& s = x.shape();
        const Shape& w = weight.shape();
        if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]})
            shape_error("linear", s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                        "expects x (..., in), weight (out, in) and bias (out)");
        if (first < 0 || count <= 0 || first + count > w[0])
            shape_error("linear", w.str(), "outputs " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                                               " are not all rows of the weight");
        const int64_t rows = s.rows(), in = w[1];
        Tensor y = Tensor::uninitialized(s.with_last(count));
        const float* b = bias.value().data() + first;
        fill_rows(y.data(), rows, b, count);
        sgemm(false, true, rows, count, in, 1.0f, x.value().data(), weight.value().data() + first * in, 1.0f, y.data());
        return record("linear", std::move(y), {x, weight, bias}, std::make_unique<Linear>(first, count));
    }

    // With G = dY seen as (rows, count), X as (rows, in) and W, b restricted to the op's rows:
    //   dx += G W;  dW += G^T X;  db += column sums of G
    void apply(Node& out) override {
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
        if (weight.requires_grad())
            sgemm(true, false, count, in, rows, 1.0f, g, x.value().data(), 1.0f, weight.grad_buffer().data() + first * in);
        if (bias.requires_grad()) {
            float* db = bias.grad_buffer().data() + first;
            for (int64_t r = 0; r < rows; ++r)
                #pragma omp simd
                for (int64_t j = 0; j < count; ++j) db[j] += g[r * count + j];
        }
    }
};

}  // namespace

Value linear(const Value& x, const Value& weight, const Value& bias) {
    return Linear::forward(x, weight, bias, 0, weight.shape().rank() == 2 ? weight.shape()[0] : 0);
}

Value linear_outputs(const Value& x, const Value& weight, const Value& bias, int64_t first, int64_t count) {
    return Linear::forward(x, weight, bias, first, count);
}

}  // namespace wai
