// A wrong answer: dweight and dbias written with = instead of +=, so each row's share replaces the
// ones before it and only the last row's is left. dx is right.
// expect: 1 | ^layer_norm_backward: wrong answer: dweight, .*first differs at \(0\).*hint: only the last row survived | \[ok\] dx for x | \[WRONG\] dbias, .*first differs at \(0\) | hint: only the last row survived: each row's share is written with = and replaces the rows before it; add it with \+=
#include <cmath>
#include <vector>

#include "lessons/exercises/layer_norm_backward.hpp"

using wai::Tensor;

LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight, float eps, const Tensor& g) {
    const int64_t D = x.shape().last(), rows = x.numel() / D;
    LayerNormGrads grads{Tensor(x.shape()), Tensor(weight.shape()), Tensor(weight.shape())};
    std::vector<float> x_hat(D), dx_hat(D);
    for (int64_t r = 0; r < rows; ++r) {
        float mean = 0.0f, var = 0.0f;
        for (int64_t j = 0; j < D; ++j) mean += x[r * D + j] / D;
        for (int64_t j = 0; j < D; ++j) var += (x[r * D + j] - mean) * (x[r * D + j] - mean) / D;
        const float rstd = 1.0f / std::sqrt(var + eps);
        float mean_dx_hat = 0.0f, mean_both = 0.0f;
        for (int64_t j = 0; j < D; ++j) {
            x_hat[j] = (x[r * D + j] - mean) * rstd;
            dx_hat[j] = g[r * D + j] * weight[j];
            mean_dx_hat += dx_hat[j] / D;
            mean_both += dx_hat[j] * x_hat[j] / D;
        }
        for (int64_t j = 0; j < D; ++j) {
            grads.dx[r * D + j] = rstd * (dx_hat[j] - mean_dx_hat - x_hat[j] * mean_both);
            grads.dweight[j] = g[r * D + j] * x_hat[j];
            grads.dbias[j] = g[r * D + j];
        }
    }
    return grads;
}
