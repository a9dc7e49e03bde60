// Element-wise arithmetic, trailing-shape broadcasting and last-axis reductions, as plain loops.
// Leaves out exp and erf (tensor/fast_math.cpp) so that this file keeps IEEE semantics for NaN checks.
#include "tensor/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wai {

void check_broadcast(const char* op, const Shape& a, const Shape& b) {
    if (b.rank() > a.rank() || a.trailing(b.rank()) != b)
        shape_error(op, a.str() + " and " + b.str(), "the second shape must equal the trailing dimensions of the first");
}

namespace {

// out[i] = f(a[i], b[i mod |b|]) over the whole of a.
template <typename F>
Tensor broadcast_binary(const char* op, const Tensor& a, const Tensor& b, F f) {
    check_broadcast(op, a.shape(), b.shape());
    Tensor out = Tensor::uninitialized(a.shape());
    const int64_t inner = b.numel(), outer = inner == 0 ? 0 : a.numel() / inner;
    const float* pa = a.data();
    const float* pb = b.data();
    float* po = out.data();
    for (int64_t r = 0; r < outer; ++r)
        for (int64_t i = 0; i < inner; ++i) po[r * inner + i] = f(pa[r * inner + i], pb[i]);
    return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
    return broadcast_binary("add", a, b, [](float x, float y) { return x + y; });
}

Tensor subtract(const Tensor& a, const Tensor& b) {
    return broadcast_binary("subtract", a, b, [](float x, float y) { return x - y; });
}

Tensor multiply(const Tensor& a, const Tensor& b) {
    return broadcast_binary("multiply", a, b, [](float x, float y) { return x * y; });
}

Tensor scale(const Tensor& a, float factor) {
    Tensor out = Tensor::uninitialized(a.shape());
    const float* in = a.data();
    float* o = out.data();
    const int64_t count = a.numel();
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) o[i] = factor * in[i];
    return out;
}

void repeat_row(float* out, int64_t rows, const float* row, int64_t width) {
    if (rows == 0) return;
    std::copy_n(row, width, out);
    // The rows written so far are copied onward, doubling each time: a few long copies, not one per row.
    for (int64_t done = 1; done < rows; done *= 2)
        std::copy_n(out, std::min(done, rows - done) * width, out + done * width);
}

void add_scaled_inplace(Tensor& dst, const Tensor& src, float alpha) {
    check_same_shape("add_scaled_inplace", dst.shape(), src.shape());
    float* d = dst.data();
    const float* s = src.data();
    const int64_t count = dst.numel();
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) d[i] += alpha * s[i];
}

void multiply_inplace(Tensor& dst, const Tensor& src) {
    check_same_shape("multiply_inplace", dst.shape(), src.shape());
    float* d = dst.data();
    const float* s = src.data();
    const int64_t count = dst.numel();
    #pragma omp simd
    for (int64_t i = 0; i < count; ++i) d[i] *= s[i];
}

void sum_leading_into(Tensor& dst, const Tensor& src, float alpha) {
    check_broadcast("sum_leading_into", src.shape(), dst.shape());
    const int64_t inner = dst.numel(), outer = inner == 0 ? 0 : src.numel() / inner;
    float* d = dst.data();
    const float* s = src.data();
    for (int64_t r = 0; r < outer; ++r) {
        const float* row = s + r * inner;
        #pragma omp simd
        for (int64_t i = 0; i < inner; ++i) d[i] += alpha * row[i];
    }
}

Tensor sum_last(const Tensor& a) {
    if (a.rank() == 0) shape_error("sum_last", a.shape().str(), "a scalar has no last axis");
    Tensor out(a.shape().drop_last());
    const int64_t cols = a.shape().last();
    for (int64_t r = 0; r < out.numel(); ++r) {
        double sum = 0.0;
        for (int64_t c = 0; c < cols; ++c) sum += a[r * cols + c];
        out[r] = static_cast<float>(sum);
    }
    return out;
}

Tensor max_last(const Tensor& a) {
    if (a.rank() == 0 || a.shape().last() == 0) shape_error("max_last", a.shape().str(), "needs a non-empty last axis");
    Tensor out(a.shape().drop_last());
    const int64_t cols = a.shape().last();
    for (int64_t r = 0; r < out.numel(); ++r)
        out[r] = *std::max_element(a.data() + r * cols, a.data() + (r + 1) * cols);
    return out;
}

double sum_all(const Tensor& a) {
    double sum = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) sum += a[i];
    return sum;
}

Tensor gelu_reference(const Tensor& x) {
    Tensor out(x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] / std::sqrt(2.0f)));
    return out;
}

Tensor gelu_slope_reference(const Tensor& x) {
    Tensor slope(x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = x[i];
        const double cdf = 0.5 * (1.0 + std::erf(v / std::sqrt(2.0)));
        const double pdf = std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI);
        slope[i] = static_cast<float>(cdf + v * pdf);
    }
    return slope;
}

void softmax_row(const float* x, float* y, int64_t visible, int64_t length) {
    if (visible > 0) {
        const float top = *std::max_element(x, x + visible);
        #pragma omp simd
        for (int64_t j = 0; j < visible; ++j) y[j] = x[j] - top;
        exp_inplace(y, visible);
        float total = 0.0f;
        #pragma omp simd reduction(+ : total)
        for (int64_t j = 0; j < visible; ++j) total += y[j];
        const float inv = 1.0f / total;
        #pragma omp simd
        for (int64_t j = 0; j < visible; ++j) y[j] *= inv;
    }
    for (int64_t j = std::max<int64_t>(visible, 0); j < length; ++j) y[j] = 0.0f;
}

void softmax_row_backward(const float* y, const float* g, float* dx, int64_t visible, int64_t length) {
    float dot = 0.0f;
    #pragma omp simd reduction(+ : dot)
    for (int64_t j = 0; j < visible; ++j) dot += g[j] * y[j];
    #pragma omp simd
    for (int64_t j = 0; j < visible; ++j) dx[j] = y[j] * (g[j] - dot);
    for (int64_t j = std::max<int64_t>(visible, 0); j < length; ++j) dx[j] = 0.0f;
}

void layer_norm_rows(const float* x, const float* weight, const float* bias, float eps, int64_t rows, int64_t width,
                     float* y, float* mean, float* rstd) {
    // Float sums in `omp simd` order: vectorised, and the same order on every run.
    #pragma omp parallel for if (rows * width > 65536) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * width;
        float sum = 0.0f, sum_sq = 0.0f;
        #pragma omp simd reduction(+ : sum)
        for (int64_t c = 0; c < width; ++c) sum += xr[c];
        const float mu = sum / static_cast<float>(width);
        #pragma omp simd reduction(+ : sum_sq)
        for (int64_t c = 0; c < width; ++c) sum_sq += (xr[c] - mu) * (xr[c] - mu);
        const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(width) + eps);
        mean[r] = mu;
        rstd[r] = inv;
        float* yr = y + r * width;
        #pragma omp simd
        for (int64_t c = 0; c < width; ++c) yr[c] = (xr[c] - mu) * inv * weight[c] + bias[c];
    }
}

Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, std::vector<float>& mean,
                          std::vector<float>& rstd) {
    const int64_t rows = x.shape().rows(), width = x.shape().last();
    mean.resize(rows);
    rstd.resize(rows);
    Tensor y = Tensor::uninitialized(x.shape());
    layer_norm_rows(x.data(), weight.data(), bias.data(), eps, rows, width, y.data(), mean.data(), rstd.data());
    return y;
}

void layer_norm_row_backward(const float* x, const float* g, const float* weight, float mean, float rstd, int64_t width,
                             float* dx, bool add_to_dx, float* dweight, float* dbias) {
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
    if (add_to_dx) {
        #pragma omp simd
        for (int64_t c = 0; c < width; ++c)
            dx[c] += rstd * (g[c] * weight[c] - mean_dxhat - (x[c] - mean) * rstd * mean_dxhat_xhat);
    } else {
        #pragma omp simd
        for (int64_t c = 0; c < width; ++c)
            dx[c] = rstd * (g[c] * weight[c] - mean_dxhat - (x[c] - mean) * rstd * mean_dxhat_xhat);
    }
}

bool all_finite(const Tensor& a) {
    for (int64_t i = 0; i < a.numel(); ++i)
        if (!std::isfinite(a[i])) return false;
    return true;
}

}  // namespace wai
