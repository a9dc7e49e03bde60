// The softmax op over the last axis, with an optional causal mask.
// The mask is part of the op (masked entries are exactly 0, never exp of -infinity), so a fully
// causal attention row costs no wasted exponentials. Leaves out arbitrary masks and temperature
// (scale the scores first).
#include <algorithm>

#include "autograd/ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

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

namespace {  // each op type is private to its file

struct Softmax final : Op {
    bool causal;
    explicit Softmax(bool c) : causal(c) {}

    // How many leading entries of row r are visible: all of them, or under the causal mask the keys
    // up to the row's query position, for (..., T, Tk) with the T queries at the end of Tk.
    static int64_t visible(int64_t r, int64_t T, int64_t Tk, bool causal) {
        if (!causal) return Tk;
        return std::clamp<int64_t>(r % T + 1 + (Tk - T), 0, Tk);
    }

    // y[r, j] = exp(x[r, j] - max_r) / sum_j' exp(x[r, j'] - max_r) over the visible j; 0 elsewhere
    static Value forward(const Value& x, bool causal) {
        const Shape& s = x.shape();
        if (s.rank() == 0) shape_error("softmax", s.str(), "needs at least one axis");
        if (causal && s.rank() < 2) shape_error("softmax", s.str(), "a causal mask needs (..., T, Tk)");
        const int64_t Tk = s.last(), rows = s.rows(), T = causal ? s[s.rank() - 2] : 1;
        Tensor y = Tensor::uninitialized(s);  // every entry is written, masked ones as 0
        for (int64_t r = 0; r < rows; ++r)
            softmax_row(x.value().data() + r * Tk, y.data() + r * Tk, visible(r, T, Tk, causal), Tk);
        return record("softmax", std::move(y), {x}, std::make_unique<Softmax>(causal));
    }

    // dx[r, j] += y[r, j] * (g[r, j] - sum_j' g[r, j'] y[r, j']); masked entries get 0
    void backward(Node& out) override {
        Value& x = out.parents[0];
        if (!x.requires_grad()) return;
        const Tensor& y = out.value;
        const Shape& s = y.shape();
        const int64_t Tk = s.last(), rows = s.rows(), T = causal ? s[s.rank() - 2] : 1;
        Tensor grad_x = Tensor::uninitialized(s);  // every entry is written, masked ones as 0
        for (int64_t r = 0; r < rows; ++r)
            softmax_row_backward(y.data() + r * Tk, out.grad.data() + r * Tk, grad_x.data() + r * Tk,
                                 visible(r, T, Tk, causal), Tk);
        x.accumulate_grad(std::move(grad_x));
    }
};

}  // namespace

Value softmax(const Value& x, bool causal) { return Softmax::forward(x, causal); }

}  // namespace wai
