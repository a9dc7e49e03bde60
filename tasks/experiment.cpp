// The training loop and the evaluation protocol of one experiment run, with the weights loaded
// before it and saved after it when asked. Leaves out learning-rate schedules, gradient clipping,
// and checkpoints during training (and so resuming the optimizer's moments): the chapter uses none.
#include "tasks/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "nn/adamw.hpp"
#include "nn/loss.hpp"
#include "positional/context_extension.hpp"
#include "positional/length_scaling.hpp"
#include "positional/make_position.hpp"
#include "files/atomic_file.hpp"
#include "tasks/evaluate.hpp"
#include "files/weights_file.hpp"

namespace wai {

uint64_t stream_seed(uint64_t seed, uint64_t stream) { return seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + 1; }

namespace {

enum Stream : uint64_t { init_stream = 1, train_stream = 2, test_stream = 1000 };

Task configured_task(const RunConfig& c) {
    Task task = make_task(c.task);
    if (c.vocab > 0) task.vocab = c.vocab;
    task.lag = c.lag;
    return task;
}

// What a saved file was trained for ("steps": this run's, not counting a loaded file's), and the sizes
// a reader needs to build its model again (make plots' attention_maps does). On loading, the task,
// scheme and heads must be this run's: a model saved with rope has the same parameters as one
// without, and one saved with 2 heads the same shapes as with 1; either would load without complaint.
std::map<std::string, std::string> saved_for(const RunConfig& c) {
    const Task task = configured_task(c);
    std::map<std::string, std::string> saved{
        {"task", c.task},          {"scheme", c.scheme},
        {"seed", std::to_string(c.seed)},
        {"steps", std::to_string(c.steps)},
        {"dim", std::to_string(c.dim)},
        {"layers", std::to_string(c.layers)},
        {"heads", std::to_string(c.heads)},
        {"mlp", std::to_string(c.mlp_hidden)},
        {"vocab", std::to_string(task.vocab)},
        {"train-len", std::to_string(c.train_length)},
        {"made_by", "whereami train_position"}};
    if (task.kind == Task::Kind::lag) saved["lag"] = std::to_string(c.lag);
    return saved;
}

// Reads c.load_path into model. Its metadata must name this run's task and scheme; a file that names
// neither loads only in the chapter's PyTorch layout, which PyTorch writes without them.
void load_run_weights(const RunConfig& c, Transformer& model) {
    const WeightsFile file = read_weights_file(c.load_path);
    const std::string fault = "weights file '" + c.load_path + "': ";
    const auto task = file.metadata.find("task"), scheme = file.metadata.find("scheme");
    const bool has_task = task != file.metadata.end(), has_scheme = scheme != file.metadata.end();
    if ((has_task && task->second != c.task) || (has_scheme && scheme->second != c.scheme))
        throw std::runtime_error(fault + "saved as " + (has_task ? task->second : "(no task)") + " " +
                                 (has_scheme ? scheme->second : "(no scheme)") + "; this run is " + c.task + " " +
                                 c.scheme + "; load it into a run of the task and scheme it was saved as");
    // Every size and task parameter the file records must be this run's. The tensors' shapes hold most
    // sizes, but not the number of heads (a file saved with other heads would load and split its
    // attention another way, silently), the lag or the training length (the task and the scaled test
    // would be another's: a garbage result, never refused); the others are named here too, with both
    // values, rather than as a tensor's shape.
    const Task run_task = configured_task(c);
    const std::pair<const char*, std::string> run_values[] = {
        {"heads", std::to_string(c.heads)},          {"dim", std::to_string(c.dim)},
        {"layers", std::to_string(c.layers)},        {"mlp", std::to_string(c.mlp_hidden)},
        {"vocab", std::to_string(run_task.vocab)},   {"train-len", std::to_string(c.train_length)},
        {"lag", run_task.kind == Task::Kind::lag ? std::to_string(c.lag) : ""}};
    for (const auto& [key, value] : run_values)
        if (const auto saved = file.metadata.find(key); saved != file.metadata.end() && !value.empty() && saved->second != value)
            throw std::runtime_error(fault + "saved with --" + key + " " + saved->second + "; this run has --" + key + " " +
                                     value + "; give the " + key + " it was saved with");
    const WeightsLayout layout = weights_layout(file, model, c.load_path);
    if (!has_task || !has_scheme) {
        if (layout == WeightsLayout::ours)
            throw std::runtime_error(fault + "its __metadata__ does not say the task and scheme it was saved as; "
                                     "train_position --save records them, and only a file in the chapter's PyTorch "
                                     "layout (emb.weight, layers.N.qkv.weight, ...) loads without them");
        const std::string note = fault + "the chapter's PyTorch layout, with no task and scheme in its metadata: loaded as " +
                                 c.task + " " + c.scheme + ", this run's task and scheme";
        if (c.load_notice) c.load_notice(note);
        else std::fprintf(stderr, "%s\n", note.c_str());
    }
    load_parameters(model, file, c.load_path, layout);
}

}  // namespace

Batch test_batch(const Task& task, uint64_t seed, int64_t length, int64_t sequences) {
    Generator generator(stream_seed(seed, test_stream + static_cast<uint64_t>(length)));
    return task.sample(generator, sequences, length);
}

void validate(const RunConfig& c) {
    const Task task = configured_task(c);
    const PositionSpec spec = parse_position_spec(c.scheme);
    auto positive = [](int64_t v, const char* what) {
        if (v <= 0) throw std::invalid_argument(std::string(what) + " must be positive, got " + std::to_string(v));
    };
    if (c.steps < 0 || (c.steps == 0 && c.load_path.empty()))
        throw std::invalid_argument("--steps must be positive, got " + std::to_string(c.steps) +
                                    " (0 is allowed with --load: evaluate the loaded weights without training)");
    positive(c.batch, "--batch");
    positive(c.train_length, "--train-len");
    if (c.train_length < 2)  // log-length scaling's factor log(T) / log(train length) has log 1 = 0 below it
        throw std::invalid_argument("--train-len must be at least 2, got 1: the scaled test multiplies the scores by "
                                    "log(test length) / log(train length), and log 1 = 0");
    positive(c.dim, "--dim");
    positive(c.layers, "--layers");
    positive(c.heads, "--heads");
    positive(c.mlp_hidden, "--mlp");
    positive(c.eval_sequences, "--eval-seqs");
    // Upper limits far above the chapter's sizes: a typo (an extra zero or three) is refused here, not
    // after it overflows a product of sizes or fills the machine's memory.
    const auto at_most = [](int64_t v, int64_t limit, const std::string& what) {
        if (v > limit) throw std::invalid_argument(what + " must be at most " + std::to_string(limit) + ", got " + std::to_string(v));
    };
    at_most(c.batch, max_size, "--batch");
    at_most(c.train_length, max_size, "--train-len");
    at_most(c.dim, max_size, "--dim");
    at_most(c.layers, 64, "--layers");
    at_most(c.mlp_hidden, 4 * max_size, "--mlp");
    at_most(c.eval_sequences, 16 * max_size, "--eval-seqs");
    at_most(c.vocab, 16 * max_size, "--vocab");
    for (int64_t length : c.test_lengths) at_most(length, max_size, "a test length");
    if (c.vocab < 0) throw std::invalid_argument("--vocab must be positive, got " + std::to_string(c.vocab));
    if (task.kind == Task::Kind::seen && task.vocab < 2) throw std::invalid_argument("--vocab must be at least 2 for seen");
    if (!(c.lr > 0.0f) || !std::isfinite(c.lr)) throw std::invalid_argument("--lr must be a positive number");
    if (c.dim % c.heads != 0)
        throw std::invalid_argument("--heads " + std::to_string(c.heads) + " does not divide --dim " + std::to_string(c.dim));
    if (spec.kind == PositionSpec::Kind::rope && (c.dim / c.heads) % 2 != 0)
        throw std::invalid_argument("rope needs an even head dimension, got " + std::to_string(c.dim / c.heads));
    if (task.kind == Task::Kind::lag) {
        positive(c.lag, "--lag");
        if (c.lag >= c.train_length)
            throw std::invalid_argument("--lag " + std::to_string(c.lag) + " must be smaller than --train-len " +
                                        std::to_string(c.train_length) + ", or no position is scored");
    }
    if (c.test_lengths.empty()) throw std::invalid_argument("--test-lens needs at least one length");
    for (int64_t length : c.test_lengths) {
        positive(length, "a test length");
        if (task.kind == Task::Kind::lag && length <= c.lag)
            throw std::invalid_argument("test length " + std::to_string(length) + " must be longer than --lag " +
                                        std::to_string(c.lag));
        if (spec.kind == PositionSpec::Kind::learned && length > learned_table_rows)
            throw std::invalid_argument("test length " + std::to_string(length) + " is past the learned table's " +
                                        std::to_string(learned_table_rows) + " rows (positions 0.." +
                                        std::to_string(learned_table_rows - 1) + ")");
    }
    // Refused now rather than after the training: a folder that is not there, a device, a link.
    if (!c.save_path.empty()) check_output_path(c.save_path, "--save");
    if (c.save_layout == WeightsLayout::chapter && c.save_path.empty())
        throw std::invalid_argument("--save-layout chapter needs --save FILE");
    if (c.save_layout == WeightsLayout::chapter && spec.kind == PositionSpec::Kind::t5)
        throw std::invalid_argument("--save-layout chapter: the chapter's PyTorch model has no t5 scheme (it has none, "
                                    "sinusoid, learned, rope and alibi); save t5 weights in our layout");
    if (spec.kind == PositionSpec::Kind::learned && c.train_length > learned_table_rows)
        throw std::invalid_argument("--train-len " + std::to_string(c.train_length) + " is past the learned table's " +
                                    std::to_string(learned_table_rows) + " rows");
    if (!c.extension.empty()) {
        const ExtensionSpec extension = parse_extension_spec(c.extension);
        if (spec.kind != PositionSpec::Kind::rope)
            throw std::invalid_argument("--extend " + c.extension + " needs a RoPE scheme (rope or rope:base), not '" +
                                        c.scheme + "'");
        if (extension.kind == ExtensionSpec::Kind::ntk && c.dim / c.heads < 4)
            throw std::invalid_argument("--extend ntk needs a head dimension of at least 4, got " + std::to_string(c.dim / c.heads));
    }
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
    return std::make_unique<Transformer>(model_config, std::move(position), init);
}

RunResult run_experiment(const RunConfig& c, const ProgressFunction& progress) {
    validate(c);
    const Task task = configured_task(c);
    const std::unique_ptr<Transformer> built = make_model(c);
    Transformer& model = *built;
    if (!c.load_path.empty()) load_run_weights(c, model);

    AdamWConfig optimizer_config;
    optimizer_config.lr = c.lr;
    AdamW optimizer(model.parameters(), optimizer_config);
    Generator data(stream_seed(c.seed, train_stream));

    RunResult result;
    const auto start = std::chrono::steady_clock::now();
    for (int64_t step = 1; step <= c.steps; ++step) {
        const Batch batch = task.sample(data, c.batch, c.train_length);
        Value loss = sequence_loss(model.forward(batch.tokens, batch.B, batch.T), batch.targets);
        const double loss_value = loss.value().item();
        if (!std::isfinite(loss_value))
            throw std::runtime_error("training stopped at step " + std::to_string(step) + ": the loss is " +
                                     std::to_string(loss_value) + " (try a smaller --lr)");
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        result.final_loss = loss_value;
        if (progress) progress(step, c.steps, loss_value);
    }
    result.seconds_training = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!c.save_path.empty()) save_weights(c.save_path, model, {}, saved_for(c), c.save_layout);

    int64_t longest = 0;
    for (int64_t length : c.test_lengths) longest = std::max(longest, length);
    if (!c.extension.empty()) {
        const ExtensionSpec extension = parse_extension_spec(c.extension);
        const double factor = extension.has_factor
                                  ? extension.factor
                                  : std::max(1.0, static_cast<double>(longest) / static_cast<double>(c.train_length));
        extend_context(dynamic_cast<RotaryPositions&>(*model.position), extension.kind, factor, c.train_length);
        result.extension = extension_name(extension.kind, factor);
    }
    for (int64_t length : c.test_lengths) {
        const Batch batch = test_batch(task, c.seed, length, c.eval_sequences);
        const Evaluation e = evaluate(model, batch, c.train_length);
        result.accuracy.push_back(e.all.value());
        if (length == longest) {
            result.past_train_accuracy = e.from_cutoff.value();
            result.has_past_train = e.from_cutoff.scored > 0;
            result.always_no_accuracy = e.always_zero.value();
        }
    }
    const Batch longest_batch = test_batch(task, c.seed, longest, c.eval_sequences);
    model.set_score_scale(log_length_scale(longest, c.train_length));
    result.scaled_accuracy = evaluate(model, longest_batch, c.train_length).all.value();
    model.set_score_scale(1.0f);
    return result;
}

}  // namespace wai
