// fast::layer_norm: the LayerNorm op of autograd/layer_norm.cpp with a backward that writes dx where
// it can without a new tensor: straight onto x's gradient when x has one already (the residual
// stream does), and otherwise over the incoming gradient, row by row. A test holds it to the plain
// op. Leaves out everything the plain op leaves out.
#include "autograd/fast/fast_ops.hpp"
#include "autograd/formulas.hpp"
#include "tensor/elementwise.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

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
        for (int64_t r = 0; r < x.shape().rows(); ++r)
            layer_norm_row_backward(x.value().data() + r * D, g.data() + r * D, weight.value().data(), mean[r], rstd[r],
                                    D, dx ? dx + r * D : nullptr, onto_existing, dweight.defined() ? dweight.data() : nullptr,
                                    dbias.defined() ? dbias.data() : nullptr);
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
    layer_norm_rows(x.value().data(), weight.value().data(), bias.value().data(), eps, rows, D, y.data(), op->mean.data(),
                    op->rstd.data());
    return record("layer_norm", std::move(y), {x, weight, bias}, std::move(op));
}

}  // namespace wai::fast
