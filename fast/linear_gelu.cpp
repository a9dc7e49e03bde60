// fast::linear_gelu: gelu(linear(x, W, b)), the MLP's first layer and its activation, as one op.
// The product is written alone (beta = 0, no bias laid down first), then one pass over it adds the
// bias and writes GELU over the sums in place, keeping the slope GELU'(h) = Phi(h) + h phi(h); the
// backward multiplies the incoming gradient by the slope where it lies and sums the bias's gradient
// in that same pass, then makes the two products. That is two passes over the (..., out) activations
// fewer each way, and one tensor of that size fewer. The GELU formulas are autograd/formulas.hpp's
// (in WebAssembly with fast/gelu_vector.hpp's erfc and exp, which vectorise), and this file is
// compiled as that one is (-ffast-math, for glibc's vector erf and exp): no finiteness check may
// live here. A test holds it to linear then gelu. Leaves out the tanh approximation.
#include <omp.h>

#include <cmath>

#include "fast/fast_ops.hpp"
#include "fast/gelu_vector.hpp"
#include "fast/linear_shares.hpp"
#include "tensor/gemm.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

// The passes run on several threads from this many elements on.
constexpr int64_t parallel_from = 65536;

struct LinearGelu final : Op {
    Tensor slope;  // GELU'(h) at h = x W^T + b, (..., out)
    explicit LinearGelu(Tensor s) : slope(std::move(s)) {}

    // x (..., in), weight (out, in), bias (out) -> (..., out): h = x W^T + b;  y = h Phi(h);
    // slope = Phi(h) + h phi(h) when a backward may come
    static Value forward(const Value& x, const Value& weight, const Value& bias) {
        const Shape& s = x.shape();
        const int64_t rows = s.rows(), in = weight.shape()[1], out = weight.shape()[0];
        Tensor y = Tensor::uninitialized(s.with_last(out));
        sgemm(false, true, rows, out, in, 1.0f, x.value().data(), weight.value().data(), 0.0f, y.data());
        const bool keep_slope = grad_enabled() && (x.requires_grad() || weight.requires_grad() || bias.requires_grad());
        Tensor slope = keep_slope ? Tensor::uninitialized(y.shape()) : Tensor();
        const float* b = bias.value().data();
        float* dy = keep_slope ? slope.data() : nullptr;
        float* h = y.data();
        // Two loops, one without the slope, each vectorised (erf and exp).
        if (dy == nullptr) {
            #pragma omp parallel for if (rows * out > parallel_from) schedule(static)
            for (int64_t r = 0; r < rows; ++r) {
                float* row = h + r * out;
                #pragma omp simd
                for (int64_t j = 0; j < out; ++j) {
                    const float v = row[j] + b[j];
                    row[j] = v * normal_cdf(v);
                }
            }
        } else {
            #pragma omp parallel for if (rows * out > parallel_from) schedule(static)
            for (int64_t r = 0; r < rows; ++r) {
                float* row = h + r * out;
                float* slope_row = dy + r * out;
                #pragma omp simd
                for (int64_t j = 0; j < out; ++j) {
                    const float v = row[j] + b[j];
                    const float cdf = normal_cdf(v);
                    row[j] = v * cdf;
                    slope_row[j] = gelu_slope_given_cdf(v, cdf);
                }
            }
        }
        return record("linear_gelu", std::move(y), {x, weight, bias}, std::make_unique<LinearGelu>(std::move(slope)));
    }

    // With G = dY as (rows, out), dH = G * slope (written over G), and X as (rows, in):
    //   db += the column sums of dH;  dx = dH W;  dW += dH^T X
    void backward(Node& node) override {
        Value& x = node.parents[0];
        Value& weight = node.parents[1];
        Value& bias = node.parents[2];
        const int64_t out = weight.shape()[0], rows = x.shape().rows();
        Tensor dh = take_incoming_grad(node);
        float* g = dh.data();
        const float* sl = slope.data();
        // db summed from zero and handed over once, as the plain op does: added row by row onto a
        // gradient that already holds something, it would round against that larger sum each time.
        Tensor bias_share = bias.requires_grad() ? Tensor(bias.shape()) : Tensor();
        float* db = bias_share.defined() ? bias_share.data() : nullptr;
        // Each thread takes a band of columns through every row, so every column of db is summed in
        // row order whatever the number of threads.
        #pragma omp parallel if (rows * out > parallel_from)
        {
            const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
            const int64_t first = out * t / threads, last = out * (t + 1) / threads;
            for (int64_t r = 0; r < rows; ++r) {
                float* gr = g + r * out;
                const float* sr = sl + r * out;
                #pragma omp simd
                for (int64_t j = first; j < last; ++j) gr[j] *= sr[j];
                if (db) {
                    #pragma omp simd
                    for (int64_t j = first; j < last; ++j) db[j] += gr[j];
                }
            }
        }
        add_linear_shares(g, x, weight);
        if (bias_share.defined()) bias.accumulate_grad(std::move(bias_share));
    }
};

}  // namespace

Value linear_gelu(const Value& x, const Value& weight, const Value& bias) {
    const Shape& s = x.shape();
    const Shape& w = weight.shape();
    if (s.rank() == 0 || w.rank() != 2 || s.last() != w[1] || bias.shape() != Shape{w[0]})
        shape_error("linear_gelu", s.str() + " x " + w.str() + "T + " + bias.shape().str(),
                    "expects x (..., in), weight (out, in) and bias (out)");
    return LinearGelu::forward(x, weight, bias);
}

}  // namespace wai::fast
