// fast::layer_norm: the LayerNorm op of autograd/layer_norm.cpp with a backward that writes dx where
// it can without a new tensor: straight onto x's gradient when x has one already (the residual
// stream does), and otherwise over the incoming gradient, row by row. A test holds it to the plain
// op. Leaves out everything the plain op leaves out.
#include "fast/fast_ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

// layer_norm_row_backward (autograd/layer_norm.cpp) with dx added onto what is there, in the same order.
void row_backward_onto(const float* x, const float* g, const float* weight, float mean, float rstd, int64_t width,
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
    const float mean_dxhat = sum_dxhat / static_cast<float>(width);
    const float mean_dxhat_xhat = sum_dxhat_xhat / static_cast<float>(width);
    #pragma omp simd
    for (int64_t c = 0; c < width; ++c) dx[c] += rstd * (g[c] * weight[c] - mean_dxhat - (x[c] - mean) * rstd * mean_dxhat_xhat);
}

struct LayerNormWhereGradientLies final : Op {
    std::vector<float> mean, rstd;  // per row: the mean and 1 / sqrt(var + eps)

    // The plain op's formulas (tensor/elementwise.hpp, layer_norm_row_backward), with dx written onto x's
    // gradient or over g, and dweight, dbias added into the parameters' gradients.
    void backward(Node& out) override {
        Value &x = out.parents[0], &weight = out.parents[1], &bias = out.parents[2];
        const int64_t D = x.shape().last();
        const bool onto_existing = x.requires_grad() && x.has_grad();
        Tensor g = take_incoming_grad(out);
        float* dx = !x.requires_grad() ? nullptr : onto_existing ? x.grad_buffer().data() : g.data();
        // dweight and dbias summed from zero and handed over once, as the plain op does: added row by
        // row onto gradients that already hold something, they would round against those sums.
        Tensor dweight = weight.requires_grad() ? Tensor(weight.shape()) : Tensor();
        Tensor dbias = bias.requires_grad() ? Tensor(bias.shape()) : Tensor();
        float* dw = dweight.defined() ? dweight.data() : nullptr;
        float* db = dbias.defined() ? dbias.data() : nullptr;
        for (int64_t r = 0; r < x.shape().rows(); ++r) {
            const float *xr = x.value().data() + r * D, *gr = g.data() + r * D;
            if (onto_existing) row_backward_onto(xr, gr, weight.value().data(), mean[r], rstd[r], D, dx + r * D, dw, db);
            else layer_norm_row_backward(xr, gr, weight.value().data(), mean[r], rstd[r], D, dx ? dx + r * D : nullptr, dw, db);
        }
        if (dx && !onto_existing) x.accumulate_grad(std::move(g));
        if (dweight.defined()) weight.accumulate_grad(std::move(dweight));
        if (dbias.defined()) bias.accumulate_grad(std::move(dbias));
    }
};

}  // namespace

// x (..., D), weight (D), bias (D) -> (..., D), the plain op's numbers
Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps) {
    const Shape& s = x.shape();
    if (s.rank() == 0 || weight.shape() != Shape{s.last()} || bias.shape() != weight.shape())
        return wai::layer_norm(x, weight, bias, eps);  // the plain op refuses the shapes, with its message
    auto op = std::make_unique<LayerNormWhereGradientLies>();
    const int64_t rows = s.rows(), D = s.last();
    op->mean.resize(rows), op->rstd.resize(rows);
    Tensor y = Tensor::uninitialized(s);
    // The plain op's rows, several threads at a time from 65536 numbers on.
    #pragma omp parallel for if (rows * D > 65536) schedule(static)
    for (int64_t r = 0; r < rows; ++r)
        layer_norm_row(x.value().data() + r * D, weight.value().data(), bias.value().data(), eps, D, y.data() + r * D,
                       op->mean[r], op->rstd[r]);
    return record("layer_norm", std::move(y), {x, weight, bias}, std::move(op));
}

}  // namespace wai::fast
