// AdamW (Loshchilov & Hutter), exactly as PyTorch's torch.optim.AdamW computes it: decoupled weight
// decay p -= lr * wd * p, then the bias-corrected Adam step. Defaults are the chapter's: lr 1e-3,
// betas (0.9, 0.999), eps 1e-8, weight decay 0.01 on every parameter.
// Leaves out amsgrad, parameter groups and learning-rate schedules.
#pragma once
#include <vector>

#include "autograd/value.hpp"

namespace wai {

struct AdamWConfig {
    float lr = 1e-3f;
    float beta1 = 0.9f, beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.01f;
};

class AdamW {
public:
    AdamW(std::vector<Value> parameters, const AdamWConfig& config = {});
    void step();       // one update from the parameters' current gradients
    void zero_grad();  // every parameter's gradient to zero
    int64_t steps_taken() const { return step_count_; }

    AdamWConfig config;

private:
    std::vector<Value> parameters_;
    std::vector<Tensor> first_moment_, second_moment_;  // m and v, one per parameter
    int64_t step_count_ = 0;
};

}  // namespace wai
