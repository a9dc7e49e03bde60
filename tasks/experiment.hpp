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
#include <string>
#include <vector>

#include "nn/adamw.hpp"
#include "nn/transformer.hpp"
#include "tasks/task.hpp"

namespace wai {

struct RunConfig {
    std::string task = "lag";
    std::string scheme = "none";
    uint64_t seed = 0;
    int64_t steps = 2000, batch = 64, train_length = 32;
    std::vector<int64_t> test_lengths{32, 64, 128};
    int64_t dim = 64, layers = 2, heads = 1, mlp_hidden = 256;
    float lr = 1e-3f;
    int64_t lag = 3;
    int64_t vocab = 0;  // 0: the task's own (16 for lag, 96 for seen)
    int64_t eval_sequences = 256;
    // A test-time context extension for RoPE ("pi", "ntk:4", "yarn", ...), or empty for none. Without
    // ":s", s is the longest test length / train_length (at least 1).
    std::string extension;
    // A scheme of the caller's own in place of the one `scheme` names (which still labels the run and
    // is validated as usual): the exercises train with a learner's code this way. Given D, NH and the
    // init stream, as make_position_encoding is.
    std::function<std::unique_ptr<PositionEncoding>(int64_t dim, int64_t heads, Generator& init)> custom_position;
    // The model's kind, chosen once here: null for the plain Transformer (the reading path); a program
    // may give another that computes the same, its parameters drawn alike (fast/fast_transformer.hpp).
    TransformerMaker make_transformer = nullptr;
};

struct RunResult {
    std::vector<double> accuracy;  // one per test length
    double past_train_accuracy = 0;  // at the longest length, positions >= train_length
    bool has_past_train = false;     // false when no test length goes past train_length
    double scaled_accuracy = 0;      // at the longest length, scores x log(T)/log(train_length)
    double always_no_accuracy = 0;   // at the longest length, answering 0 everywhere (for seen)
    std::string extension;           // the extension tested, with its factor ("yarn:4"), or empty
    double final_loss = 0;
    double seconds_training = 0;
};

// Progress after each step: step (1-based), total steps, loss.
using ProgressFunction = std::function<void(int64_t, int64_t, double)>;

// make_model, train and test_model in turn. Throws std::invalid_argument for a configuration that
// cannot run (with a one-line reason), and std::runtime_error if the loss stops being finite (naming the step).
RunResult run_experiment(const RunConfig& config, const ProgressFunction& progress = {});

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
// The tests of a trained model: every accuracy of RunResult, with the extension if the config names one.
void test_model(const Transformer& model, const RunConfig& config, RunResult& result);

// Checks everything run_experiment would refuse, without training; throws the same errors
// (tasks/run_checks.cpp). steps may be 0 here: the model is tested as it is.
void validate(const RunConfig& config);
// The largest --batch, --train-len, --dim and test length validate accepts (--mlp: 4x, --eval-seqs and
// --vocab: 16x, --layers: 64).
constexpr int64_t max_size = 4096;
constexpr int64_t max_steps = 100000;  // --steps, as the page takes them

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
