// The LayerNorm op over the last axis: y = weight * (x - mean) / sqrt(var + eps) + bias.
// One op, not a chain of small ones, so its backward is the closed form and saves two numbers a row.
// Leaves out LayerNorm without affine parameters, and RMSNorm.
#include <cmath>

#include "autograd/ops.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct LayerNorm final : Op {
    std::vector<float> mean, rstd;  // per row: the mean and 1 / sqrt(var + eps)

    // x (..., D), weight (D), bias (D) -> (..., D); var is the biased (1/D) variance, as in PyTorch.
    static Value forward(const Value& x, const Value& weight, const Value& bias, float eps) {
        const Shape& s = x.shape();
        const int64_t D = s.rank() ? s.last() : 0;
        if (s.rank() == 0 || weight.shape() != Shape{D} || bias.shape() != Shape{D})
            shape_error("layer_norm", s.str() + " with weight " + weight.shape().str() + " and bias " + bias.shape().str(),
                        "weight and bias must both be (D) for x (..., D)");
        const int64_t rows = s.rows();
        auto op = std::make_unique<LayerNorm>();
        op->mean.resize(rows);
        op->rstd.resize(rows);
        Tensor y = Tensor::uninitialized(s);
        const float* w = weight.value().data();
        const float* b = bias.value().data();
        // Float sums in `omp simd` order: vectorised, and the same order on every run.
        #pragma omp parallel for if (rows * D > 65536) schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const float* xr = x.value().data() + r * D;
            float sum = 0.0f, sum_sq = 0.0f;
            #pragma omp simd reduction(+ : sum)
            for (int64_t c = 0; c < D; ++c) sum += xr[c];
            const float mu = sum / static_cast<float>(D);
            #pragma omp simd reduction(+ : sum_sq)
            for (int64_t c = 0; c < D; ++c) sum_sq += (xr[c] - mu) * (xr[c] - mu);
            const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(D) + eps);
            op->mean[r] = mu;
            op->rstd[r] = inv;
            float* yr = y.data() + r * D;
            #pragma omp simd
            for (int64_t c = 0; c < D; ++c) yr[c] = (xr[c] - mu) * inv * w[c] + b[c];
        }
        return record("layer_norm", std::move(y), {x, weight, bias}, std::move(op));
    }

    // With x_hat = (x - mean) * rstd and dx_hat = g * weight:
    //   dx += rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))
    //   dweight += sum over rows of g * x_hat;  dbias += sum over rows of g
    // dx goes straight onto x's gradient when x has one already (the residual stream does), and
    // otherwise overwrites g row by row (each row of g is read before its dx is written).
    void apply(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t D = x.shape().last(), rows = x.shape().rows();
        const float* w = weight.value().data();
        const float* g = out.grad.data();
        const bool onto_existing = x.requires_grad() && x.has_grad();
        float* dx = !x.requires_grad() ? nullptr : onto_existing ? x.grad_buffer().data() : out.grad.data();
        float* dw = weight.requires_grad() ? weight.grad_buffer().data() : nullptr;
        float* db = bias.requires_grad() ? bias.grad_buffer().data() : nullptr;
        for (int64_t r = 0; r < rows; ++r) {
            const float* xr = x.value().data() + r * D;
            const float* gr = g + r * D;
            const float mu = mean[r], inv = rstd[r];
            float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
            #pragma omp simd reduction(+ : sum_dxhat, sum_dxhat_xhat)
            for (int64_t c = 0; c < D; ++c) {
                const float dxhat = gr[c] * w[c];
                sum_dxhat += dxhat;
                sum_dxhat_xhat += dxhat * (xr[c] - mu) * inv;
            }
            if (dw) {
                #pragma omp simd
                for (int64_t c = 0; c < D; ++c) dw[c] += gr[c] * (xr[c] - mu) * inv;
            }
            if (db) {
                #pragma omp simd
                for (int64_t c = 0; c < D; ++c) db[c] += gr[c];
            }
            if (!dx) continue;
            const float mean_dxhat = sum_dxhat / static_cast<float>(D);
            const float mean_dxhat_xhat = sum_dxhat_xhat / static_cast<float>(D);
            float* dxr = dx + r * D;
            if (onto_existing) {
                #pragma omp simd
                for (int64_t c = 0; c < D; ++c)
                    dxr[c] += inv * (gr[c] * w[c] - mean_dxhat - (xr[c] - mu) * inv * mean_dxhat_xhat);
            } else {
                #pragma omp simd
                for (int64_t c = 0; c < D; ++c)
                    dxr[c] = inv * (gr[c] * w[c] - mean_dxhat - (xr[c] - mu) * inv * mean_dxhat_xhat);
            }
        }
        if (dx && !onto_existing) x.accumulate_grad(std::move(out.grad));
    }
};

}  // namespace

Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps) {
    return LayerNorm::forward(x, weight, bias, eps);
}

}  // namespace wai
