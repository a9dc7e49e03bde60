// AdamW: the update loop, in the order PyTorch's single-tensor implementation performs it.
// Leaves out the fused multi-tensor variants; the arithmetic is the same.
#include "nn/adamw.hpp"

#include <cmath>

namespace wai {

AdamW::AdamW(std::vector<Value> parameters, const AdamWConfig& c) : config(c), parameters_(std::move(parameters)) {
    for (const Value& p : parameters_) {
        first_moment_.emplace_back(p.shape());
        second_moment_.emplace_back(p.shape());
    }
}

void AdamW::step() {
    ++step_count_;
    const double bias_correction1 = 1.0 - std::pow(static_cast<double>(config.beta1), static_cast<double>(step_count_));
    const double bias_correction2 = 1.0 - std::pow(static_cast<double>(config.beta2), static_cast<double>(step_count_));
    const float step_size = static_cast<float>(config.lr / bias_correction1);
    const float sqrt_bias_correction2 = static_cast<float>(std::sqrt(bias_correction2));
    const float decay = 1.0f - config.lr * config.weight_decay;
    for (size_t i = 0; i < parameters_.size(); ++i) {
        Value& p = parameters_[i];
        if (!p.has_grad()) continue;  // a parameter no loss reached (a learned table's unused rows still have a gradient of 0)
        float* w = p.value().data();
        const float* g = p.grad().data();
        float* m = first_moment_[i].data();
        float* v = second_moment_[i].data();
        const int64_t count = p.value().numel();
        // Locals, so the compiler need not reload the settings after every store: the loop vectorises.
        const float beta1 = config.beta1, beta2 = config.beta2, eps = config.eps;
        #pragma omp simd
        for (int64_t j = 0; j < count; ++j) {
            w[j] *= decay;
            m[j] = beta1 * m[j] + (1.0f - beta1) * g[j];
            v[j] = beta2 * v[j] + (1.0f - beta2) * g[j] * g[j];
            const float denom = std::sqrt(v[j]) / sqrt_bias_correction2 + eps;
            w[j] -= step_size * m[j] / denom;
        }
    }
}

void AdamW::zero_grad() {
    for (Value& p : parameters_) p.zero_grad();
}

}  // namespace wai
