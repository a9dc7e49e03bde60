// A run's configuration and what it measured: RunConfig (the task, the scheme, the sizes, the steps,
// the test lengths, and the model's kind) and RunResult. Types only: a run is made by
// tasks/experiment.hpp, checked by tasks/run_checks.hpp, tested by tasks/evaluate.hpp.
// Leaves out the command line that fills a RunConfig (programs/train_position.cpp).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/transformer.hpp"

namespace wai {

class AdamW;
struct Task;
struct RunConfig;
// One training step on a fresh batch of data's: the batch's loss before the update (training_step's
// signature, tasks/experiment.hpp).
using StepFunction = std::function<double(Transformer& model, AdamW& optimizer, const Task& task, Generator& data,
                                          const RunConfig& config)>;
// Makes a run's step function for its model, once, before the first step.
using StepMaker = StepFunction (*)(Transformer& model, const RunConfig& config);

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
    // How the run takes a training step, chosen once with the model: null for training_step
    // (tasks/experiment.hpp, the reading path); a program may give one that computes the same step
    // another way (fast/split_step.hpp: the batch in micro-batches, on threads).
    StepMaker make_step = nullptr;
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

}  // namespace wai
