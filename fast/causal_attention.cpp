// fast::causal_attention: softmax(scale * q k^T + bias, causal) v as one op, one (T, T) slice at a time.
// Each slice's scores go from the product that makes them through the softmax to the product that
// reads them while they are still in cache, the scale rides on the product (gemm's alpha), and
// evaluation keeps one (T, T) buffer per thread instead of every slice's weights. It replaces the
// chain of plain ops in nn/attention.cpp (matmul, scale, add, softmax, matmul); a test holds them
// together. Leaves out Tk > T (a key-value cache), dropout, and FlashAttention's tiling of long
// rows: a whole (T, T) slice of scores is made at once.
#include <omp.h>

#include <algorithm>

#include "fast/fast_ops.hpp"
#include "tensor/gemm.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

// What every slice shares: q, k, v are (slices, T, H) in memory; bias is (bias_slices, T, T) and
// slice i reads bias slice i % bias_slices (the trailing-shape broadcast of tensor/elementwise.hpp).
struct AttentionSizes {
    int64_t slices, T, H, bias_slices;

    AttentionSizes(const Value& q, const Value& k, const Value& v, const Value& bias) {
        const Shape& s = q.shape();
        if (s.rank() < 2 || k.shape() != s || v.shape() != s)
            shape_error("causal_attention", s.str() + ", " + k.shape().str() + ", " + v.shape().str(),
                        "expects q, k and v of one shape (..., T, H)");
        T = s[s.rank() - 2], H = s.last();
        slices = T * H == 0 ? 0 : s.numel() / (T * H);
        bias_slices = 0;
        if (bias.defined()) {
            check_broadcast("causal_attention", s.with_last(T), bias.shape());  // scores (..., T, T)
            bias_slices = T == 0 ? 0 : bias.shape().numel() / (T * T);
        }
    }
    // OpenMP over slices pays for itself from a few slices of a few thousand multiply-adds each.
    bool parallel() const { return slices > 1 && slices * T * T * H > 65536; }
};

struct CausalAttention final : Op {
    AttentionSizes sizes;
    float scale;
    Tensor weights;  // (..., T, T): the softmax of every slice, what the backward reads
    CausalAttention(const AttentionSizes& shapes, float factor, Tensor w) : sizes(shapes), scale(factor), weights(std::move(w)) {}

    // q, k, v (..., T, H), bias (trailing shape of (..., T, T)) or undefined -> (..., T, H)
    //   S = scale q k^T + bias;  P = causal softmax of S row by row;  Y = P v
    static Value forward(const Value& q, const Value& k, const Value& v, const Value& bias, float scale,
                         Tensor* weights_out) {
        const AttentionSizes sizes(q, k, v, bias);
        const int64_t T = sizes.T, H = sizes.H;
        bool needs_grad = grad_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
        if (bias.defined()) needs_grad = needs_grad || (grad_enabled() && bias.requires_grad());
        // Every slice's weights are kept when the backward or the caller needs them; otherwise each
        // thread reuses one (T, T) buffer.
        const bool keep = needs_grad || weights_out != nullptr;
        Tensor weights = Tensor::uninitialized(keep ? q.shape().with_last(T) : Shape{omp_get_max_threads(), T, T});
        Tensor y = Tensor::uninitialized(q.shape());
        #pragma omp parallel for if (sizes.parallel()) schedule(static)
        for (int64_t i = 0; i < sizes.slices; ++i) {
            float* p = weights.data() + (keep ? i : omp_get_thread_num()) * T * T;  // (T, T)
            float beta = 0.0f;
            if (sizes.bias_slices > 0) {  // the bias goes in first and the product adds onto it
                const float* b = bias.value().data() + (i % sizes.bias_slices) * T * T;
                std::copy(b, b + T * T, p);
                beta = 1.0f;
            }
            sgemm(false, true, T, T, H, scale, q.value().data() + i * T * H, k.value().data() + i * T * H, beta, p);
            for (int64_t t = 0; t < T; ++t) softmax_row(p + t * T, p + t * T, t + 1, T);  // query t sees keys 0..t
            sgemm(false, false, T, H, T, 1.0f, p, v.value().data() + i * T * H, 0.0f, y.data() + i * T * H);
        }
        if (weights_out) *weights_out = weights;
        std::vector<Value> parents{q, k, v};
        if (bias.defined()) parents.push_back(bias);
        return record("causal_attention", std::move(y), std::move(parents),
                      std::make_unique<CausalAttention>(sizes, scale, keep ? std::move(weights) : Tensor()));
    }

    // With G = dY, slice by slice:
    //   dv = P^T G;  dP = G v^T;  dS = P * (dP - rowsum(dP * P)) (0 where masked);
    //   dq = scale dS k;  dk = scale dS^T q;  dbias = dS summed over the slices that share a bias slice
    void backward(Node& out) override {
        Value& q = out.parents[0];
        Value& k = out.parents[1];
        Value& v = out.parents[2];
        const bool bias_grad = out.parents.size() > 3 && out.parents[3].requires_grad();
        const int64_t T = sizes.T, H = sizes.H;
        const Shape& s = q.shape();
        Tensor dq = q.requires_grad() ? Tensor::uninitialized(s) : Tensor();
        Tensor dk = k.requires_grad() ? Tensor::uninitialized(s) : Tensor();
        Tensor dv = v.requires_grad() ? Tensor::uninitialized(s) : Tensor();
        // dS of every slice when the bias learns (summed below); otherwise one (T, T) buffer per thread.
        Tensor ds = Tensor::uninitialized(bias_grad ? s.with_last(T) : Shape{omp_get_max_threads(), T, T});
        const float* g = out.grad.data();
        #pragma omp parallel for if (sizes.parallel()) schedule(static)
        for (int64_t i = 0; i < sizes.slices; ++i) {
            const float* p = weights.data() + i * T * T;
            const float* gi = g + i * T * H;
            float* dsi = ds.data() + (bias_grad ? i : omp_get_thread_num()) * T * T;
            if (dv.defined()) sgemm(true, false, T, H, T, 1.0f, p, gi, 0.0f, dv.data() + i * T * H);
            sgemm(false, true, T, T, H, 1.0f, gi, v.value().data() + i * T * H, 0.0f, dsi);  // dP
            for (int64_t t = 0; t < T; ++t) softmax_row_backward(p + t * T, dsi + t * T, dsi + t * T, t + 1, T);
            if (dq.defined()) sgemm(false, false, T, H, T, scale, dsi, k.value().data() + i * T * H, 0.0f, dq.data() + i * T * H);
            if (dk.defined()) sgemm(true, false, T, H, T, scale, dsi, q.value().data() + i * T * H, 0.0f, dk.data() + i * T * H);
        }
        if (dq.defined()) q.accumulate_grad(std::move(dq));
        if (dk.defined()) k.accumulate_grad(std::move(dk));
        if (dv.defined()) v.accumulate_grad(std::move(dv));
        if (bias_grad) {
            Value& bias = out.parents[3];
            Tensor dbias(bias.shape());
            sum_leading_into(dbias, ds);
            bias.accumulate_grad(std::move(dbias));
        }
    }
};

}  // namespace

Value causal_attention(const Value& q, const Value& k, const Value& v, const Value& bias, float scale,
                       Tensor* weights) {
    return CausalAttention::forward(q, k, v, bias, scale, weights);
}

}  // namespace wai::fast
