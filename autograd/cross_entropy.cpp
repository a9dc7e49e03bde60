// The cross-entropy op: mean over scored rows of -log softmax(logits)[target].
// One fused op (log-sum-exp inside), as in PyTorch, so it is stable for large logits.
// Leaves out label smoothing and class weights.
#include <algorithm>
#include <cmath>

#include "autograd/ops.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct CrossEntropy final : Op {
    std::vector<int> targets;
    Tensor probabilities;  // saved softmax of the logits, (N, V)
    int64_t scored = 0;

    // logits (..., V) seen as N rows; targets has N entries in [0, V) or ignore_index -> ()
    static Value forward(const Value& logits, const std::vector<int>& targets) {
        const Shape& s = logits.shape();
        if (s.rank() == 0) shape_error("cross_entropy", s.str(), "logits need a class axis");
        const int64_t V = s.last(), N = s.rows();
        if (static_cast<int64_t>(targets.size()) != N)
            shape_error("cross_entropy", s.str(), std::to_string(targets.size()) + " targets for " + std::to_string(N) + " rows");
        auto op = std::make_unique<CrossEntropy>();
        op->targets = targets;
        op->probabilities = Tensor(Shape{N, V});
        double total = 0.0;
        for (int64_t r = 0; r < N; ++r) {
            const int t = targets[r];
            if (t == ignore_index) continue;
            if (t < 0 || t >= V)
                shape_error("cross_entropy", s.str(), "target " + std::to_string(t) + " is not a class 0.." + std::to_string(V - 1));
            const float* z = logits.value().data() + r * V;
            float* p = op->probabilities.data() + r * V;
            const float top = *std::max_element(z, z + V);
            double sum = 0.0;
            for (int64_t j = 0; j < V; ++j) sum += (p[j] = std::exp(z[j] - top));
            for (int64_t j = 0; j < V; ++j) p[j] = static_cast<float>(p[j] / sum);
            total += std::log(sum) + top - z[t];
            ++op->scored;
        }
        if (op->scored == 0) shape_error("cross_entropy", s.str(), "every target is ignore_index: nothing to score");
        const float loss = static_cast<float>(total / op->scored);
        return record("cross_entropy", Tensor::scalar(loss), {logits}, std::move(op));
    }

    // dlogits[r, j] += g * (p[r, j] - [j == target_r]) / scored, for scored rows only
    void backward(Node& out) override {
        Value& logits = out.parents[0];
        if (!logits.requires_grad()) return;
        const int64_t V = probabilities.size(1);
        const float g = out.grad.item() / static_cast<float>(scored);
        Tensor dlogits(logits.shape());  // zeros: ignored rows get no gradient
        for (size_t r = 0; r < targets.size(); ++r) {
            if (targets[r] == ignore_index) continue;
            const float* p = probabilities.data() + r * V;
            for (int64_t j = 0; j < V; ++j) dlogits[r * V + j] = g * p[j];
            dlogits[r * V + targets[r]] -= g;
        }
        logits.accumulate_grad(std::move(dlogits));
    }
};

}  // namespace

Value cross_entropy(const Value& logits, const std::vector<int>& targets) {
    return CrossEntropy::forward(logits, targets);
}

}  // namespace wai
