// Element-wise arithmetic, trailing-shape broadcasting and last-axis reductions, as plain loops.
// Leaves out exp and erf (tensor/fast_math.cpp) so that this file keeps IEEE semantics for NaN checks.
#include "tensor/elementwise.hpp"

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

bool all_finite(const Tensor& a) {
    for (int64_t i = 0; i < a.numel(); ++i)
        if (!std::isfinite(a[i])) return false;
    return true;
}

}  // namespace wai
