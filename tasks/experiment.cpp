// One experiment run: the model, the training step and loop, and the run from start to result.
// Leaves out learning-rate schedules, gradient clipping, checkpoints (the chapter uses none), the
// run's tests (test_model, tasks/evaluate.cpp), the limits of a configuration (tasks/run_checks.cpp)
// and weight files (files/run_weights.cpp).
#include "tasks/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "autograd/ops.hpp"
#include "positional/make_position.hpp"

namespace wai {

uint64_t stream_seed(uint64_t seed, uint64_t stream) { return seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + 1; }

namespace {
enum Stream : uint64_t { init_stream = 1, train_stream = 2, test_stream = 1000 };
}

Task configured_task(const RunConfig& c) {
    Task task = make_task(c.task);
    if (c.vocab > 0) task.vocab = c.vocab;
    task.lag = c.lag;
    return task;
}

Batch test_batch(const Task& task, uint64_t seed, int64_t length, int64_t sequences) {
    Generator generator(stream_seed(seed, test_stream + static_cast<uint64_t>(length)));
    return task.sample(generator, sequences, length);
}

std::unique_ptr<Transformer> make_model(const RunConfig& c) {
    const Task task = configured_task(c);
    TransformerConfig model_config;
    model_config.vocab = task.vocab;
    model_config.outputs = task.outputs();
    model_config.dim = c.dim;
    model_config.layers = c.layers;
    model_config.heads = c.heads;
    model_config.mlp_hidden = c.mlp_hidden;
    Generator init(stream_seed(c.seed, init_stream));
    auto position = c.custom_position ? c.custom_position(c.dim, c.heads, init)
                                      : make_position_encoding(parse_position_spec(c.scheme), c.dim, c.heads, init);
    if (c.make_transformer) return c.make_transformer(model_config, std::move(position), init);
    return std::make_unique<Transformer>(model_config, std::move(position), init);
}

// One step of training, as llm.c's main shows it: next batch, forward, zero_grad, backward, update.
double training_step(Transformer& model, AdamW& optimizer, const Task& task, Generator& data, const RunConfig& c) {
    const Batch batch = task.sample(data, c.batch, c.train_length);                      // tokens, targets (B, T)
    Value loss = cross_entropy(model.forward(batch.tokens, batch.B, batch.T), batch.targets);  // logits (B, T, n_out) -> ()
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    return loss.value().item();
}

namespace {
AdamWConfig optimizer_config(const RunConfig& c) {
    AdamWConfig config;
    config.lr = c.lr;
    return config;
}
}  // namespace

TrainingState::TrainingState(Transformer& model, const RunConfig& c)
    : task(configured_task(c)), optimizer(model.parameters(), optimizer_config(c)), data(stream_seed(c.seed, train_stream)) {}

void train(Transformer& model, const RunConfig& c, RunResult& result, const ProgressFunction& progress) {
    TrainingState state(model, c);
    const StepFunction take_step = c.make_step ? c.make_step(model, c) : StepFunction(training_step);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t step = 1; step <= c.steps; ++step) {
        const double loss = take_step(model, state.optimizer, state.task, state.data, c);
        if (!std::isfinite(loss))
            throw training_diverged(step, loss);  // naming the likely cause (tasks/evaluate.hpp)
        result.final_loss = loss;
        if (progress) progress(step, c.steps, loss);
    }
    result.seconds_training = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

RunResult run_experiment(const RunConfig& c, const ProgressFunction& progress, const RunHooks& hooks) {
    validate(c);
    const std::unique_ptr<Transformer> model = make_model(c);
    if (hooks.before_training) hooks.before_training(*model);
    RunResult result;
    train(*model, c, result, progress);
    if (hooks.after_training) hooks.after_training(*model);
    test_model(*model, c, result);
    return result;
}

}  // namespace wai
