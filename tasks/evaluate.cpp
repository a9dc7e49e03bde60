// Evaluation loop: forward in chunks, argmax per position, count; and the experiment's tests of a
// trained run built on it. Leaves out ties: the first maximum wins.
#include "tasks/evaluate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "autograd/ops.hpp"
#include "positional/context_extension.hpp"
#include "positional/length_scaling.hpp"
#include "positional/spec.hpp"
#include "tasks/experiment.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

Diverged training_diverged(int64_t step, double loss) {
    return Diverged("training stopped at step " + std::to_string(step) + ": the loss is " + std::to_string(loss),
                    step == 1 ? "the first step's loss comes before any update, so not from --lr: the model's forward "
                                "gives it, as a position scheme's code returning NaN or infinity would"
                              : "try a smaller --lr");
}

Evaluation evaluate(const Transformer& model, const Batch& batch, int64_t cutoff, const ForwardOptions& options,
                    int64_t chunk) {
    NoGradScope no_grad;
    Evaluation result;
    const int64_t T = batch.T;
    for (int64_t first = 0; first < batch.B; first += chunk) {
        const int64_t B = std::min(chunk, batch.B - first);
        const std::vector<int> tokens(batch.tokens.begin() + first * T, batch.tokens.begin() + (first + B) * T);
        const Tensor logits = model.forward(tokens, B, T, options).value();  // (B, T, n_out)
        // An argmax over NaN is meaningless, yet gives a plausible accuracy: refuse to count it.
        if (!all_finite(logits))
            throw Diverged("evaluation at length " + std::to_string(T) +
                           ": the model's outputs hold NaN or infinity, as a diverged training's do");
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

void test_model(const Transformer& model, const RunConfig& c, RunResult& result) {
    const Task task = configured_task(c);
    int64_t longest = 0;
    for (int64_t length : c.test_lengths) longest = std::max(longest, length);
    ForwardOptions options;  // training's, unless an extension stands in for the trained RoPE
    std::unique_ptr<RotaryPositions> extended;
    if (!c.extension.empty()) {
        const ExtensionSpec extension = parse_extension_spec(c.extension);
        const double factor = extension.has_factor
                                  ? extension.factor
                                  : std::max(1.0, static_cast<double>(longest) / static_cast<double>(c.train_length));
        const PositionSpec spec = parse_position_spec(c.scheme);
        extended = extend_context(c.dim / c.heads, spec.has_value ? spec.value : 10000.0, RopePairing::interleaved,
                                  extension.kind, factor, c.train_length);
        options.position = extended.get();
        result.extension = extension_name(extension.kind, factor);
    }
    result.accuracy.clear();
    for (int64_t length : c.test_lengths) {
        const Batch batch = test_batch(task, c.seed, length, c.eval_sequences);
        const Evaluation e = evaluate(model, batch, c.train_length, options);
        result.accuracy.push_back(e.all.value());
        if (length == longest) {
            result.past_train_accuracy = e.from_cutoff.value();
            result.has_past_train = e.from_cutoff.scored > 0;
            result.always_no_accuracy = e.always_zero.value();
        }
    }
    options.score_scale = log_length_scale(longest, c.train_length);
    result.scaled_accuracy = evaluate(model, test_batch(task, c.seed, longest, c.eval_sequences), c.train_length, options).all.value();
}

AttentionReach attention_reach(const float* weights, int64_t T, int64_t from, int64_t lag) {
    AttentionReach reach;
    double distance = 0.0;
    for (int64_t m = from; m < T; ++m) {
        const float* row = weights + m * T;  // query m; keys 0..m (the rest are masked)
        int64_t best = 0;
        for (int64_t n = 0; n <= m; ++n) {
            if (row[n] > row[best]) best = n;
            distance += row[n] * static_cast<double>(m - n);
        }
        reach.lag_back += m - best == lag;
        ++reach.queries;
    }
    reach.mean_distance = reach.queries ? distance / reach.queries : 0.0;
    return reach;
}

}  // namespace wai
