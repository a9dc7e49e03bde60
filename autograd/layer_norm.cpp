// The LayerNorm op over the last axis: y = weight * (x - mean) / sqrt(var + eps) + bias.
// One op, not a chain of small ones, so its backward is the closed form and saves two numbers a row;
// the row kernels, with both formulas, are in tensor/kernels.cpp. Leaves out LayerNorm without affine
// parameters, and RMSNorm.
#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

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
        auto op = std::make_unique<LayerNorm>();
        Tensor y = layer_norm_forward(x.value(), weight.value(), bias.value(), eps, op->mean, op->rstd);
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
                                    rstd[r], D, dx.defined() ? dx.data() + r * D : nullptr, false,
                                    dweight.defined() ? dweight.data() : nullptr, dbias.defined() ? dbias.data() : nullptr);
        if (dx.defined()) x.accumulate_grad(std::move(dx));
        if (dweight.defined()) weight.accumulate_grad(std::move(dweight));
        if (dbias.defined()) bias.accumulate_grad(std::move(dbias));
    }
};

}  // namespace

Value layer_norm(const Value& x, const Value& weight, const Value& bias, float eps) {
    return LayerNorm::forward(x, weight, bias, eps);
}

}  // namespace wai
