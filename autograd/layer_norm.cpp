// The LayerNorm op over the last axis: y = weight * (x - mean) / sqrt(var + eps) + bias.
// One op, not a chain of small ones, so its backward is the closed form and saves two numbers a row;
// its row formulas, forward and backward, are here too. Leaves out LayerNorm without affine
// parameters, and RMSNorm.
#include <cmath>

#include "autograd/ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

void layer_norm_row(const float* x, const float* weight, const float* bias, float eps, int64_t width, float* y,
                    float& mean, float& rstd) {
    // Float sums in `omp simd` order: vectorised, and the same order on every run.
    float sum = 0.0f, sum_sq = 0.0f;
    #pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < width; ++c) sum += x[c];
    const float mu = sum / static_cast<float>(width);
    #pragma omp simd reduction(+ : sum_sq)
    for (int64_t c = 0; c < width; ++c) sum_sq += (x[c] - mu) * (x[c] - mu);
    const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(width) + eps);
    mean = mu;
    rstd = inv;
    #pragma omp simd
    for (int64_t c = 0; c < width; ++c) y[c] = (x[c] - mu) * inv * weight[c] + bias[c];
}

void layer_norm_row_backward(const float* x, const float* g, const float* weight, float mean, float rstd, int64_t width,
                             float* dx, float* dweight, float* dbias) {
    float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
    #pragma omp simd reduction(+ : sum_dxhat, sum_dxhat_xhat)
    for (int64_t c = 0; c < width; ++c) {
        const float dxhat = g[c] * weight[c];
        sum_dxhat += dxhat;
        sum_dxhat_xhat += dxhat * (x[c] - mean) * rstd;
    }
    if (dweight) {
        #pragma omp simd
        for (int64_t c = 0; c < width; ++c) dweight[c] += g[c] * (x[c] - mean) * rstd;
    }
    if (dbias) {
        #pragma omp simd
        for (int64_t c = 0; c < width; ++c) dbias[c] += g[c];
    }
    if (!dx) return;
    const float mean_dxhat = sum_dxhat / static_cast<float>(width);
    const float mean_dxhat_xhat = sum_dxhat_xhat / static_cast<float>(width);
    #pragma omp simd
    for (int64_t c = 0; c < width; ++c) dx[c] = rstd * (g[c] * weight[c] - mean_dxhat - (x[c] - mean) * rstd * mean_dxhat_xhat);
}

namespace {  // each op type is private to its file

struct LayerNormOp final : Op {
    std::vector<float> mean, rstd;  // per row: the mean and 1 / sqrt(var + eps)

    // x (..., D), weight (D), bias (D) -> (..., D); var is the biased (1/D) variance, as in PyTorch.
    static Value forward(const Value& x, const Value& weight, const Value& bias, float eps) {
        const Shape& s = x.shape();
        const int64_t D = s.rank() ? s.last() : 0;
        if (s.rank() == 0 || weight.shape() != Shape{D} || bias.shape() != Shape{D})
            shape_error("layer_norm", s.str() + " with weight " + weight.shape().str() + " and bias " + bias.shape().str(),
                        "weight and bias must both be (D) for x (..., D)");
        auto op = std::make_unique<LayerNormOp>();
        const int64_t rows = s.rows();
        op->mean.resize(rows), op->rstd.resize(rows);
        Tensor y = Tensor::uninitialized(s);
        for (int64_t r = 0; r < rows; ++r)
            layer_norm_row(x.value().data() + r * D, weight.value().data(), bias.value().data(), eps, D, y.data() + r * D,
                           op->mean[r], op->rstd[r]);
        return record("layer_norm", std::move(y), {x, weight, bias}, std::move(op));
    }

    // With x_hat = (x - mean) * rstd and dx_hat = g * weight, row by row:
    //   dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))
    //   dweight = sum over rows of g * x_hat;  dbias = sum over rows of g
    void backward(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t D = x.shape().last(), rows = x.shape().rows();
        Tensor dx = x.requires_grad() ? Tensor::uninitialized(x.shape()) : Tensor();
        Tensor dweight = weight.requires_grad() ? Tensor(weight.shape()) : Tensor();
        Tensor dbias = bias.requires_grad() ? Tensor(bias.shape()) : Tensor();
        for (int64_t r = 0; r < rows; ++r)
            layer_norm_row_backward(x.value().data() + r * D, out.grad.data() + r * D, weight.value().data(), mean[r],
                                    rstd[r], D, dx.defined() ? dx.data() + r * D : nullptr,
                                    dweight.defined() ? dweight.data() : nullptr, dbias.defined() ? dbias.data() : nullptr);
        if (dx.defined()) x.accumulate_grad(std::move(dx));
        if (dweight.defined()) weight.accumulate_grad(std::move(dweight));
        if (dbias.defined()) bias.accumulate_grad(std::move(dbias));
    }
};

}  // namespace

Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps) {
    return LayerNormOp::forward(x, weight, bias, eps);
}

}  // namespace wai
