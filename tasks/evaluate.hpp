// Evaluation: accuracy of a model's argmax at the scored positions of test batches, with no graph.
// Also counts the positions at or past a given index separately ("positions past 32"), and the
// accuracy of always answering class 0 (seen's always-"no" baseline); and where the queries past the
// training length look in an attention map. Leaves out loss on test data.
#pragma once
#include <stdexcept>
#include <string>

#include "nn/transformer.hpp"
#include "tasks/run_config.hpp"
#include "tasks/task.hpp"

namespace wai {

struct Accuracy {
    int64_t correct = 0, scored = 0;
    double value() const { return scored ? static_cast<double>(correct) / scored : 0.0; }
    void add(const Accuracy& other) { correct += other.correct, scored += other.scored; }
};

struct Evaluation {
    Accuracy all;          // every scored position
    Accuracy from_cutoff;  // scored positions t >= cutoff
    Accuracy always_zero;  // what answering class 0 everywhere would score
};

// A run whose numbers stopped being finite: `where` says at which step or length, and what() adds
// the likely cure, by default the usual one (a smaller --lr). A caller that knows of another cause
// (exercise-train, where the same settings trained the library's model) says that instead.
struct Diverged : std::runtime_error {
    explicit Diverged(const std::string& where_, const std::string& cure = "try a smaller --lr")
        : std::runtime_error(where_ + " (" + cure + ")"), where(where_) {}
    std::string where;
};

// Training stopped at `step` by a `loss` that is not finite. At step 1 the loss comes from the starting
// weights, before any update: no learning rate made it, the model's forward did (a scheme's code
// giving NaN or infinity, say), and the cure named says so; later, a smaller --lr.
Diverged training_diverged(int64_t step, double loss);

// Runs the model on `batch` in chunks of `chunk` sequences under a NoGradScope, each forward with
// `options` (a score scale, an extended RoPE). Throws Diverged if the model's outputs are not all
// finite (a diverged model), naming the length.
Evaluation evaluate(const Transformer& model, const Batch& batch, int64_t cutoff, const ForwardOptions& options = {},
                    int64_t chunk = 64);

// Where the queries at positions `from`..T-1 look in one attention map (T, T) of a head, row =
// query: how many put their largest weight exactly `lag` back (lag's answer), and the mean distance
// m - n they attend, weighted. make plots (plots/attention_maps.cpp) and the web page say it.
struct AttentionReach {
    int64_t queries = 0, lag_back = 0;
    double mean_distance = 0.0;
};
AttentionReach attention_reach(const float* weights, int64_t T, int64_t from, int64_t lag);

// The tests of a trained model: every accuracy of RunResult, with the extension if the config names one.
void test_model(const Transformer& model, const RunConfig& config, RunResult& result);

}  // namespace wai
