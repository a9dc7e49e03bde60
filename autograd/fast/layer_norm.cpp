// fast::layer_norm: the LayerNorm op of autograd/layer_norm.cpp with a backward that writes dx where
// it can without a new tensor: straight onto x's gradient when x has one already (the residual
// stream does), and otherwise over the incoming gradient, row by row. A test holds it to the plain
// op. Leaves out everything the plain op leaves out.
#include "autograd/fast/fast_ops.hpp"
#include "tensor/kernels.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

struct LayerNorm final : Op {
    std::vector<float> mean, rstd;  // per row: the mean and 1 / sqrt(var + eps)

    // x (..., D), weight (D), bias (D) -> (..., D), the plain op's numbers
    static Value forward(const Value& x, const Value& weight, const Value& bias, float eps) {
        const Shape& s = x.shape();
        if (s.rank() == 0 || weight.shape() != Shape{s.last()} || bias.shape() != weight.shape())
            return wai::layer_norm(x, weight, bias, eps);  // the plain op refuses the shapes, with its message
        auto op = std::make_unique<LayerNorm>();
        op->mean.resize(s.rows());
        op->rstd.resize(s.rows());
        Tensor y = Tensor::uninitialized(s);
        layer_norm_rows(x.value().data(), weight.value().data(), bias.value().data(), eps, s.rows(), s.last(), y.data(),
                        op->mean.data(), op->rstd.data());
        return record("layer_norm", std::move(y), {x, weight, bias}, std::move(op));
    }

    // The plain op's formulas (tensor/kernels.hpp, layer_norm_row_backward), with dx written onto x's
    // gradient or over g, and dweight, dbias added into the parameters' gradients.
    void backward(Node& out) override {
        Value& x = out.parents[0];
        Value& weight = out.parents[1];
        Value& bias = out.parents[2];
        const int64_t D = x.shape().last(), rows = x.shape().rows();
        const bool onto_existing = x.requires_grad() && x.has_grad();
        Tensor g = take_incoming_grad(out);
        float* dx = !x.requires_grad() ? nullptr : onto_existing ? x.grad_buffer().data() : g.data();
        float* dweight = weight.requires_grad() ? weight.grad_buffer().data() : nullptr;
        float* dbias = bias.requires_grad() ? bias.grad_buffer().data() : nullptr;
        for (int64_t r = 0; r < rows; ++r)
            layer_norm_row_backward(x.value().data() + r * D, g.data() + r * D, weight.value().data(), mean[r], rstd[r],
                                    D, dx ? dx + r * D : nullptr, onto_existing, dweight, dbias);
        if (dx && !onto_existing) x.accumulate_grad(std::move(g));
    }
};

}  // namespace

Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps) {
    return LayerNorm::forward(x, weight, bias, eps);
}

}  // namespace wai::fast
