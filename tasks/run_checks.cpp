// The limits of a run's configuration: every size positive and far from overflow, the scheme's own
// needs (an even head for RoPE, the learned table's rows), the task's (a lag shorter than the
// sequences), and a context extension only for RoPE. Each refusal is one line naming the flag.
// Leaves out the weight files' checks (files/run_weights.cpp).
#include "tasks/run_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "positional/context_extension.hpp"
#include "positional/make_position.hpp"
#include "positional/spec.hpp"
#include "tasks/experiment.hpp"

namespace wai {

namespace {

// Each size from 1 to a limit far above the chapter's sizes: a typo (an extra zero or three) is
// refused, not left to overflow a product of sizes or fill the machine's memory. `least` is what the
// message says; the value `allowed` below it (0) has a meaning of its own, in `note`.
struct SizeLimit {
    const char* name;
    int64_t least, most;
    const char* note = "";
    int64_t allowed = 1;
};
const SizeLimit size_limits[] = {
    {"--steps", 1, max_steps, " (0 with --load: the loaded weights tested)", 0},  // as the page takes them; the chapter's: 2000
    {"--batch", 1, max_size},
    {"--train-len", 2, max_size},
    {"--dim", 1, max_size},
    {"--layers", 1, 64},
    {"--heads", 1, max_size},
    {"--mlp", 1, 4 * max_size},
    {"--eval-seqs", 1, 16 * max_size},
    {"--vocab", 1, max_vocab, "", 0},  // 0: the task's own
    {"--lag", 1, max_size},
    {"a test length", 1, max_size},
};

const SizeLimit& size_limit(const std::string& name) {
    for (const SizeLimit& limit : size_limits)
        if (name == limit.name) return limit;
    throw std::logic_error("size_limit: no size named " + name);
}

// `v` within its limit, else refused in size_refusal's words.
void within(int64_t v, const std::string& name) {
    const SizeLimit& limit = size_limit(name);
    if (v < std::min(limit.least, limit.allowed) || v > limit.most) throw std::invalid_argument(size_refusal(name, std::to_string(v)));
}

}  // namespace

std::string size_refusal(const std::string& name, const std::string& got) {
    const SizeLimit& limit = size_limit(name);
    return name + " must be from " + std::to_string(limit.least) + " to " + std::to_string(limit.most) + limit.note +
           ", got " + got;
}

void validate(const RunConfig& c) {
    const Task task = configured_task(c);
    const PositionSpec spec = parse_position_spec(c.scheme);
    within(c.steps, "--steps");
    within(c.batch, "--batch");
    if (c.train_length == 1)  // log-length scaling's factor log(T) / log(train length) has log 1 = 0 below it
        throw std::invalid_argument(size_refusal("--train-len", "1") + ": the scaled test multiplies the scores by "
                                    "log(test length) / log(train length), and log 1 = 0");
    within(c.train_length, "--train-len");
    within(c.dim, "--dim");
    within(c.layers, "--layers");
    within(c.heads, "--heads");
    within(c.mlp_hidden, "--mlp");
    within(c.eval_sequences, "--eval-seqs");
    for (int64_t length : c.test_lengths) within(length, "a test length");
    within(c.vocab, "--vocab");
    if (task.kind == Task::Kind::seen && task.vocab < 2) throw std::invalid_argument("--vocab must be at least 2 for seen");
    if (!(c.lr > 0.0f) || !std::isfinite(c.lr)) throw std::invalid_argument("--lr must be a positive number");
    if (c.dim % c.heads != 0)
        throw std::invalid_argument("--heads " + std::to_string(c.heads) + " does not divide --dim " + std::to_string(c.dim));
    if (spec.kind == PositionSpec::Kind::rope && (c.dim / c.heads) % 2 != 0)
        throw std::invalid_argument("rope needs an even head dimension, got " + std::to_string(c.dim / c.heads));
    if (spec.kind == PositionSpec::Kind::mine && (c.dim / c.heads) % 2 != 0)
        throw std::invalid_argument("mine (positional/mine.cpp) holds a RoPE, which needs an even head dimension, got " +
                                    std::to_string(c.dim / c.heads));
    within(c.lag, "--lag");  // checked for seen too, which has no use for it: a typo is still a typo
    if (task.kind == Task::Kind::lag) {
        if (c.lag >= c.train_length)
            throw std::invalid_argument("--lag " + std::to_string(c.lag) + " must be smaller than --train-len " +
                                        std::to_string(c.train_length) + ", or no position is scored");
    }
    if (c.test_lengths.empty()) throw std::invalid_argument("--test-lens needs at least one length");
    // ALiBi's penalty, slope x distance, must stay a float32 number at the longest distance tested.
    if (spec.kind == PositionSpec::Kind::alibi && spec.has_value) {
        int64_t longest = c.train_length;
        for (int64_t length : c.test_lengths) longest = std::max(longest, length);
        if (spec.value * static_cast<double>(longest - 1) > std::numeric_limits<float>::max())
        {
            // Three digits, rounded down: the slope said is one that is taken.
            const double largest = std::numeric_limits<float>::max() / static_cast<double>(longest - 1);
            const double unit = std::pow(10.0, std::floor(std::log10(largest)) - 2);
            char most[32];
            std::snprintf(most, sizeof most, "%.3g", std::floor(largest / unit) * unit);
            throw std::invalid_argument(c.scheme + ": the penalty, slope x distance, passes float32's largest number (3.4e38) "
                                        "at distance " + std::to_string(longest - 1) + "; with these lengths the slope must be "
                                        "at most " + most);
        }
    }
    for (int64_t length : c.test_lengths) {
        if (task.kind == Task::Kind::lag && length <= c.lag)
            throw std::invalid_argument("test length " + std::to_string(length) + " must be longer than --lag " +
                                        std::to_string(c.lag));
        if (spec.kind == PositionSpec::Kind::learned && length > learned_table_rows)
            throw std::invalid_argument("test length " + std::to_string(length) + " is past the learned table's " +
                                        std::to_string(learned_table_rows) + " rows (positions 0.." +
                                        std::to_string(learned_table_rows - 1) + ")");
    }
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

}  // namespace wai
