// The checker of the LayerNorm-backward exercise: your layer_norm_backward against the library's
// layer_norm backward (wai::layer_norm, autograd/layer_norm.cpp) on x (2, 3, 6) with a random
// weight, dx first, then dweight and dbias; then your backward as an op (exercise::learner_op),
// gradchecked entry by entry against finite differences of the library's forward; then one training
// step of the chapter's model on the plain kernels, with your function as the backward of every
// layer_norm node, every parameter's gradient compared with the library's backward. Known slips it
// names: either of dx's two mean terms forgotten, the unbiased variance, dweight without x_hat (or
// with x for x_hat), dbias not summed over the rows, dweight or dbias written with = (the last row's
// share only).
// Leaves out eps as a slip: at 1e-5 beside a variance of about 2 it changes nothing one could see.
#include <cmath>

#include "autograd/ops.hpp"
#include "lessons/exercises/check/engine_training_step.hpp"
#include "lessons/exercises/layer_norm_backward.hpp"
#include "nn/layer_norm.hpp"

using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

constexpr float eps = 1e-5f;
// dx, dweight and dbias are of about 1, each from sums of 6 (or 6 rows of) float32 products: rounding
// stays near 1e-6, and the mildest slip (the unbiased variance, rstd off by sqrt(5/6)) moves them by
// several percent.
constexpr double tolerance = 1e-4;

// What the formula gives with its parts switched off or changed: with_mean_term and with_x_hat_term
// are dx's two means; unbiased divides var by D - 1; raw_x puts x where dweight needs x_hat;
// assigned writes each row's share of dweight and dbias with = instead of adding it (+=), so only
// the last row's is left.
struct Variant {
    bool with_mean_term = true, with_x_hat_term = true, unbiased = false, raw_x = false, assigned = false;
};

LayerNormGrads slipped(const Tensor& x, const Tensor& weight, const Tensor& g, const Variant& v) {
    const int64_t D = x.shape().last(), rows = x.numel() / D;
    LayerNormGrads out{Tensor(x.shape()), Tensor(weight.shape()), Tensor(weight.shape())};
    std::vector<double> x_hat(D), dx_hat(D);
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = x.data() + r * D;
        double mean = 0.0, var = 0.0, mean_dx_hat = 0.0, mean_both = 0.0;
        for (int64_t j = 0; j < D; ++j) mean += row[j] / static_cast<double>(D);
        for (int64_t j = 0; j < D; ++j) var += (row[j] - mean) * (row[j] - mean) / static_cast<double>(v.unbiased ? D - 1 : D);
        const double rstd = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < D; ++j) {
            x_hat[j] = (row[j] - mean) * rstd;
            dx_hat[j] = g[r * D + j] * weight[j];
            mean_dx_hat += dx_hat[j] / D;
            mean_both += dx_hat[j] * x_hat[j] / D;
        }
        for (int64_t j = 0; j < D; ++j) {
            out.dx[r * D + j] = static_cast<float>(rstd * (dx_hat[j] - (v.with_mean_term ? mean_dx_hat : 0.0) -
                                                           (v.with_x_hat_term ? x_hat[j] * mean_both : 0.0)));
            const float dweight_share = static_cast<float>(g[r * D + j] * (v.raw_x ? row[j] : x_hat[j]));
            out.dweight[j] = v.assigned ? dweight_share : out.dweight[j] + dweight_share;
            out.dbias[j] = v.assigned ? g[r * D + j] : out.dbias[j] + g[r * D + j];
        }
    }
    return out;
}

Tensor first_row(const Tensor& t) {
    Tensor row(Shape{t.shape().last()});
    for (int64_t j = 0; j < row.numel(); ++j) row[j] = t[j];
    return row;
}

LayerNormGrads yours_checked(const Tensor& x, const Tensor& weight, float e, const Tensor& g) {
    LayerNormGrads grads = layer_norm_backward(x, weight, e, g);
    if (grads.dx.shape() != x.shape() || grads.dweight.shape() != weight.shape() || grads.dbias.shape() != weight.shape())
        throw std::invalid_argument("layer_norm_backward's shares have shapes " + grads.dx.shape().str() + ", " +
                                    grads.dweight.shape().str() + ", " + grads.dbias.shape().str() + " for x " +
                                    x.shape().str() + " and weight " + weight.shape().str());
    return grads;
}

// The three shares, as the op's backward hands them to x, weight and bias.
exercise::BackwardFunction your_backward(float e) {
    return [e](const std::vector<Tensor>& in, const Tensor&, const Tensor& grad) {
        LayerNormGrads grads = yours_checked(in[0], in[1], e, grad);
        return std::vector<Tensor>{std::move(grads.dx), std::move(grads.dweight), std::move(grads.dbias)};
    };
}

void check(exercise::Checker& checker) {
    checker.next_hint = "write layer_norm_backward: per row mean, rstd, x_hat and dx_hat = g * weight, then the formula";
    wai::Generator generator(29);
    const Tensor x = Tensor::normal(Shape{2, 3, 6}, 0.5f, 1.5f, generator);
    const Tensor weight = Tensor::normal(Shape{6}, 1.0f, 0.5f, generator), bias = Tensor::normal(Shape{6}, 0.0f, 0.5f, generator);
    const Tensor g = Tensor::normal(Shape{2, 3, 6}, 0.0f, 1.0f, generator);
    const LayerNormGrads yours = layer_norm_backward(x, weight, eps, g);

    Value x_value(x, true), weight_value(weight, true), bias_value(bias, true);
    wai::layer_norm(x_value, weight_value, bias_value, eps).backward(g);
    const LayerNormGrads unbiased = slipped(x, weight, g, {.unbiased = true});
    const std::string unbiased_hint = "the variance is divided by D - 1: LayerNorm's is the biased one, divided by D";
    const LayerNormGrads assigned = slipped(x, weight, g, {.assigned = true});
    const std::string assigned_hint = "only the last row survived: each row's share is written with = and replaces the "
                                      "rows before it; add it with +=, so the sum runs over every row";
    const bool dx_right = checker.compare(
        "dx for x (2, 3, 6), against the library's layer_norm backward", yours.dx, x_value.grad(), tolerance,
        {{"mean(dx_hat) is missing: the row's mean moves with every x, so subtract mean(dx_hat) too",
          slipped(x, weight, g, {.with_mean_term = false}).dx},
         {"x_hat * mean(dx_hat * x_hat) is missing: the row's variance moves with every x, so subtract that term too",
          slipped(x, weight, g, {.with_x_hat_term = false}).dx},
         {"both row means are missing: dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))",
          slipped(x, weight, g, {.with_mean_term = false, .with_x_hat_term = false}).dx},
         {unbiased_hint, unbiased.dx}});
    const bool dweight_right = checker.compare(
        "dweight, against the library's layer_norm backward", yours.dweight, weight_value.grad(), tolerance,
        {{"dweight sums g alone, which is dbias: weight multiplies x_hat, so sum g * x_hat", slipped(x, weight, g, {}).dbias},
         {"dweight sums g * x: weight multiplies the normalised x_hat = (x - mean) * rstd, not x",
          slipped(x, weight, g, {.raw_x = true}).dweight},
         {assigned_hint, assigned.dweight},
         {unbiased_hint, unbiased.dweight}});
    const bool dbias_right = checker.compare(
        "dbias, against the library's layer_norm backward", yours.dbias, bias_value.grad(), tolerance,
        {{"dbias is g row by row, in x's shape: bias is added to every row, so sum g over the rows into one (D)", g},
         {"dbias is the first row's g only: bias is added to every row, so add up all the rows' g", first_row(g)},
         {assigned_hint, assigned.dbias}});
    if (!dx_right || !dweight_right || !dbias_right) return;

    exercise::gradcheck(
        checker, "your backward as an op, gradchecked",
        [](const std::vector<Value>& in) {
            return exercise::learner_op(
                "your_layer_norm", in,
                [](const std::vector<Tensor>& v) { return wai::layer_norm(Value(v[0]), Value(v[1]), Value(v[2]), eps).value(); },
                your_backward(eps));
        },
        {Value(x, true), Value(weight, true), Value(bias, true)});
    if (checker.failed()) return;

    const float model_eps = wai::LayerNorm(1).eps;  // the eps of every LayerNorm of the model (nn/layer_norm.hpp)
    exercise::compare_training_step_with_your_op(checker, "one training step of the chapter's model, every LayerNorm with your backward",
                                                 "layer_norm", your_backward(model_eps));
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"layer_norm_backward", "the backward of LayerNorm, at the start of every block of the chapter's model",
                                      "write layer_norm_backward"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
