// One run of the chapter's experiment: build the model for a task and scheme, train it on fresh
// batches of length train_length, then test it at each test length; at the longest, also on the
// positions past train_length only, and with every score scaled by log(T)/log(train_length). A RoPE
// run may be tested with a context extension (positional/context_extension.hpp) in place of its RoPE.
// The training step is training_step (tasks/experiment.cpp): batch, forward, zero_grad, backward, update.
// Leaves out the command line and weight files (programs/train_position.cpp, files/run_weights.hpp)
// and running several runs (the Makefile).
#pragma once
#include <functional>
#include <memory>

#include "nn/adamw.hpp"
#include "nn/transformer.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/run_checks.hpp"
#include "tasks/run_config.hpp"
#include "tasks/task.hpp"

namespace wai {

// Progress after each step: step (1-based), total steps, loss.
using ProgressFunction = std::function<void(int64_t, int64_t, double)>;

// What a caller does around a run's training, each given the model: before it (made, not trained yet:
// train_position loads weights here) and after it (trained, not tested yet: it saves them here).
// files/run_weights.hpp makes the weight files' pair.
struct RunHooks {
    std::function<void(Transformer&)> before_training, after_training;
};

// validate, make_model, the hook before, train, the hook after, test_model. Throws
// std::invalid_argument for a configuration that cannot run (with a one-line reason), and Diverged
// (tasks/evaluate.hpp) if the loss or the outputs stop being finite (naming the step or length).
RunResult run_experiment(const RunConfig& config, const ProgressFunction& progress = {}, const RunHooks& hooks = {});

// What a run's training carries from one step to the next: the task its batches come from, the
// optimizer (AdamW at config.lr over the model's parameters) and the stream its batches are drawn
// from (the seed's training stream). train makes one and steps it; a caller that wants to pause
// between steps (the web page, web/page_api.cpp) does the same and gets the same run.
struct TrainingState {
    TrainingState(Transformer& model, const RunConfig& config);
    Task task;
    AdamW optimizer;
    Generator data;
};

// One training step on a fresh batch; returns the batch's loss before the update.
double training_step(Transformer& model, AdamW& optimizer, const Task& task, Generator& data, const RunConfig& config);
// config.steps training steps from the model's current weights: fills final_loss and seconds_training.
void train(Transformer& model, const RunConfig& config, RunResult& result, const ProgressFunction& progress = {});

// The model a run starts from: the task's sizes, the scheme, parameters drawn from the seed's init
// stream (before loading any weights). The config must be valid.
std::unique_ptr<Transformer> make_model(const RunConfig& config);

// The test batches for a run: they depend only on the task, seed, length and count, so every
// scheme of a seed is tested on the same sequences.
Batch test_batch(const Task& task, uint64_t seed, int64_t length, int64_t sequences);

// The task the config names, with its vocab (when not 0) and lag.
Task configured_task(const RunConfig& config);

// Separate, reproducible generator streams derived from a run's seed.
uint64_t stream_seed(uint64_t seed, uint64_t stream);

}  // namespace wai
