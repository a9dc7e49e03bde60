// The softmax op over the last axis, with an optional causal mask.
// The mask is part of the op (masked entries are exactly 0, never exp of -infinity), so a fully
// causal attention row costs no wasted exponentials. Leaves out arbitrary masks and temperature
// (scale the scores first).
#include <algorithm>

#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

namespace wai {

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
        Tensor y(s);
        #pragma omp parallel for if (rows * Tk > 65536) schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const float* xr = x.value().data() + r * Tk;
            float* yr = y.data() + r * Tk;
            const int64_t n = visible(r, T, Tk, causal);
            if (n == 0) continue;
            const float top = *std::max_element(xr, xr + n);
            for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] - top;
            exp_inplace(yr, n);
            float total = 0.0f;
            #pragma omp simd reduction(+ : total)
            for (int64_t j = 0; j < n; ++j) total += yr[j];
            const float inv = 1.0f / total;
            #pragma omp simd
            for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
        }
        return record("softmax", std::move(y), {x}, std::make_unique<Softmax>(causal));
    }

    // dx[r, j] += y[r, j] * (g[r, j] - sum_j' g[r, j'] y[r, j']); masked entries get 0
    void apply(Node& out) override {
        Value& x = out.parents[0];
        if (!x.requires_grad()) return;
        const Tensor& y = out.value;
        const Shape& s = y.shape();
        const int64_t Tk = s.last(), rows = s.rows(), T = causal ? s[s.rank() - 2] : 1;
        Tensor grad_x = Tensor::uninitialized(s);  // every entry is written below, masked ones as 0
        float* dx = grad_x.data();
        #pragma omp parallel for if (rows * Tk > 65536) schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const float* yr = y.data() + r * Tk;
            const float* gr = out.grad.data() + r * Tk;
            const int64_t n = visible(r, T, Tk, causal);
            float dot = 0.0f;
            #pragma omp simd reduction(+ : dot)
            for (int64_t j = 0; j < n; ++j) dot += gr[j] * yr[j];
            #pragma omp simd
            for (int64_t j = 0; j < n; ++j) dx[r * Tk + j] = yr[j] * (gr[j] - dot);
            for (int64_t j = n; j < Tk; ++j) dx[r * Tk + j] = 0.0f;
        }
        x.accumulate_grad(std::move(grad_x));
    }
};

}  // namespace

Value softmax(const Value& x, bool causal) { return Softmax::forward(x, causal); }

}  // namespace wai
