// Evaluation loop: forward in chunks, argmax per position, count. Leaves out ties: the first maximum wins.
#include "tasks/evaluate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

namespace wai {

Evaluation evaluate(const Transformer& model, const Batch& batch, int64_t cutoff, int64_t chunk) {
    NoGradScope no_grad;
    Evaluation result;
    const int64_t T = batch.T;
    for (int64_t first = 0; first < batch.B; first += chunk) {
        const int64_t B = std::min(chunk, batch.B - first);
        const std::vector<int> tokens(batch.tokens.begin() + first * T, batch.tokens.begin() + (first + B) * T);
        const Tensor logits = model.forward(tokens, B, T).value();  // (B, T, n_out)
        // An argmax over NaN is meaningless, yet gives a plausible accuracy: refuse to count it.
        if (!all_finite(logits))
            throw std::runtime_error("evaluation at length " + std::to_string(T) +
                                     ": the model's outputs hold NaN or infinity (did the training diverge? try a smaller --lr)");
        const int64_t classes = logits.shape().last();
        for (int64_t n = 0; n < B * T; ++n) {
            const int target = batch.targets[first * T + n];
            if (target == ignore_index) continue;
            const float* row = logits.data() + n * classes;
            const int predicted = static_cast<int>(std::max_element(row, row + classes) - row);
            const Accuracy hit{predicted == target ? 1 : 0, 1};
            result.all.add(hit);
            if (n % T >= cutoff) result.from_cutoff.add(hit);
            result.always_zero.add({target == 0 ? 1 : 0, 1});
        }
    }
    return result;
}

}  // namespace wai
