// Tests against PyTorch, the yardstick: for both tasks and each of the chapter's seven schemes, our
// Transformer starts from PyTorch's initial weights, runs PyTorch's batch forward and backward, and
// must give PyTorch's logits, loss and every parameter's gradient; then one AdamW step must give
// PyTorch's updated weights. The numbers are tests/reference/golden_<task>_<scheme>.safetensors,
// written once by tests/reference/make_golden.py (PyTorch 1.13, float32); this test needs no Python.
// Both kernels settings are held to it. Leaves out longer training (one step checks every op and the
// optimizer) and more than one head.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nn/adamw.hpp"
#include "nn/kernels_setting.hpp"
#include "nn/loss.hpp"
#include "nn/transformer.hpp"
#include "positional/make_position.hpp"
#include "tasks/task.hpp"
#include "tests/helpers.hpp"
#include "tasks/weights_file.hpp"

using namespace wai;
using wai::testing::error_on_scale;

namespace {

// Tolerances. Two float32 programs that add the same numbers in different orders differ by a few
// units of float32 rounding (~1e-7) times the size of what is being summed, so an entry near zero
// can have a large relative error without anything being wrong (a gradient that is a sum of
// cancelling terms, say). Each tensor is therefore compared on its own scale: the largest
// difference from PyTorch, divided by the largest PyTorch number in that tensor, must be at most
// 1e-4. A wrong sign, a missing term or a transposed operand anywhere gives errors of order 1.
constexpr double tolerance = 1e-4;
// The AdamW step is checked from PyTorch's own gradients, with the same inputs on both sides, to a
// tolerance of 1e-6 of the largest weight (only the rounding of an element-wise formula differs).
// From our gradients it could not be: the first step moves each weight by lr * g / (|g| + eps),
// almost exactly +-lr, so it keeps only each gradient's sign, and where a gradient is float32 noise
// around zero (the key bias's is exactly zero in exact arithmetic: softmax ignores a constant added
// to a row of scores) PyTorch's step and ours may go either way. A weight decay that was left out
// would move the weights by 1e-5 of their size, ten times this tolerance.
constexpr double step_tolerance = 1e-6;

// Token ids and targets are stored as F32 (tests/reference/make_golden.py); they must be integers.
std::vector<int> as_integers(const Tensor& t) {
    std::vector<int> values(t.numel());
    for (int64_t i = 0; i < t.numel(); ++i) {
        REQUIRE(t[i] == std::round(t[i]));
        values[i] = static_cast<int>(t[i]);
    }
    return values;
}

std::string golden_file(const std::string& task, const std::string& scheme) {
    std::string name = scheme;
    std::replace(name.begin(), name.end(), ':', '-');
    return std::string(WAI_GOLDEN_DIR) + "/golden_" + task + "_" + name + ".safetensors";
}

void check_against_pytorch(const std::string& task_name, const std::string& scheme) {
    // The task's starting point (initial weights, batch, AdamW step) is in its "none" file; each
    // scheme's file has that scheme's logits, loss and gradients (and the learned table's weights).
    const WeightsFile start = read_weights_file(golden_file(task_name, "none"));
    const WeightsFile golden = read_weights_file(golden_file(task_name, scheme));
    WeightsFile initial = start;
    initial.tensors.insert(golden.tensors.begin(), golden.tensors.end());

    const Task task = make_task(task_name);
    TransformerConfig config;  // the chapter's sizes: D 64, 2 layers, 1 head, MLP 256
    config.vocab = task.vocab;
    config.outputs = task.outputs();
    Generator unused(0);  // every weight is replaced by PyTorch's
    Transformer model(config, make_position_encoding(parse_position_spec(scheme), config.dim, config.heads, unused),
                      unused);
    load_parameters(model, initial, golden_file(task_name, scheme));

    const Tensor& tokens = start.tensors.at("tokens");  // (B, T)
    const std::vector<int> targets = as_integers(start.tensors.at("targets"));
    const Value logits = model.forward(as_integers(tokens), tokens.size(0), tokens.size(1));  // (B, T, n_out)
    Value loss = sequence_loss(logits, targets);
    loss.backward();
    CHECK(error_on_scale(logits.value(), golden.tensors.at("logits")) <= tolerance);
    CHECK(error_on_scale(loss.value(), golden.tensors.at("loss")) <= tolerance);
    for (const auto& [name, parameter] : model.named_parameters()) {
        INFO("grad." << name);
        CHECK(error_on_scale(parameter.grad(), golden.tensors.at("grad." + name)) <= tolerance);
    }
    if (scheme != "none") return;  // the step is in the none file only: the optimizer is the same for every scheme

    AdamW optimizer(model.parameters());
    for (auto& [name, parameter] : model.named_parameters()) parameter.grad_buffer() = golden.tensors.at("grad." + name);
    optimizer.step();
    for (const auto& [name, parameter] : model.named_parameters()) {
        INFO("updated." << name);
        CHECK(error_on_scale(parameter.value(), golden.tensors.at("updated." + name)) <= step_tolerance);
    }
}

}  // namespace

TEST_CASE("golden: both tasks, every scheme, both kernels settings, match PyTorch (logits, loss, gradients, AdamW step)",
          "[golden]") {
    for (const char* task : {"lag", "seen"})
        for (const Kernels kernels : {Kernels::plain, Kernels::fast})
            for (const char* scheme : {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"})
                DYNAMIC_SECTION(task << " " << kernels_name(kernels) << " " << scheme) {
                    const KernelsScope scope(kernels);
                    check_against_pytorch(task, scheme);
                }
}
