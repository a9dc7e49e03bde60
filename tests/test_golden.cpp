// Tests against PyTorch, the yardstick: for both tasks and each of the chapter's seven schemes and
// t5, our Transformer starts from PyTorch's initial weights, runs PyTorch's batch forward and
// backward, and must give PyTorch's logits, loss and every parameter's gradient; then one AdamW step
// must give PyTorch's updated weights. The numbers are tests/reference/golden_<task>_<scheme>.safetensors,
// written once by tests/reference/make_golden.py (PyTorch 1.13, float32); this test needs no Python.
// Context extension against Hugging Face: every pair's frequency and the attention factor of PI, NTK
// and YaRN (tests/reference/hf_rope_scaling.json, from hf_rope_scaling.py), and a RoPE model's logits
// at 128 and 512 with each (golden_<task>_extension.safetensors).
// Both kernels settings are held to it. Leaves out longer training (one step checks every op and the
// optimizer) and more than one head.
#include "tests/catch.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "nn/adamw.hpp"
#include "autograd/ops.hpp"
#include "nn/transformer.hpp"
#include "positional/context_extension.hpp"
#include "positional/make_position.hpp"
#include "positional/ntk_scaling.hpp"
#include "positional/position_interpolation.hpp"
#include "positional/rope.hpp"
#include "positional/yarn.hpp"
#include "tasks/task.hpp"
#include "tests/helpers.hpp"
#include "files/weights_file.hpp"
#include "startup/kernels_choice.hpp"

using namespace wai;
using wai::testing::error_on_scale;

namespace {

// The model as a program with these kernels makes it (startup/kernels_choice.hpp).
std::unique_ptr<Transformer> made(Kernels kernels, const TransformerConfig& config, std::unique_ptr<PositionEncoding> position,
                                  Generator& generator) {
    const TransformerMaker make = transformer_maker(kernels);
    return make ? make(config, std::move(position), generator) : std::make_unique<Transformer>(config, std::move(position), generator);
}

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

void check_against_pytorch(const std::string& task_name, const std::string& scheme, Kernels kernels) {
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
    const auto made_model = made(kernels, config, make_position_encoding(parse_position_spec(scheme), config.dim, config.heads, unused),
                                 unused);
    Transformer& model = *made_model;
    load_parameters(model, initial, golden_file(task_name, scheme));

    const Tensor& tokens = start.tensors.at("tokens");  // (B, T)
    const std::vector<int> targets = as_integers(start.tensors.at("targets"));
    const Value logits = model.forward(as_integers(tokens), tokens.size(0), tokens.size(1));  // (B, T, n_out)
    Value loss = cross_entropy(logits, targets);
    loss.backward();
    CHECK(error_on_scale(logits.value(), golden.tensors.at("logits")) <= tolerance);
    CHECK(error_on_scale(loss.value(), golden.tensors.at("loss")) <= tolerance);
    for (const auto& [name, parameter] : model.named_parameters()) {
        INFO("grad." << name);
        CHECK(error_on_scale(parameter.grad(), golden.tensors.at("grad." + name)) <= tolerance);
    }
    // The step is in the none file, for every weight: the optimizer is the same for every scheme. t5's
    // file adds its bias table's step, the one weight no other scheme has.
    if (scheme != "none" && scheme != "t5") return;

    AdamW optimizer(model.parameters());
    for (auto& [name, parameter] : model.named_parameters()) parameter.grad_buffer() = golden.tensors.at("grad." + name);
    optimizer.step();
    int checked = 0;
    for (const auto& [name, parameter] : model.named_parameters()) {
        INFO("updated." << name);
        if (scheme != "none" && !golden.tensors.count("updated." + name)) continue;
        CHECK(error_on_scale(parameter.value(), golden.tensors.at("updated." + name)) <= step_tolerance);
        ++checked;
    }
    CHECK(checked == (scheme == "none" ? static_cast<int>(model.named_parameters().size()) : 1));
}

ExtensionSpec::Kind method_kind(const std::string& method) { return parse_extension_spec(method).kind; }

// A RoPE model from the task's starting weights, extended to each length by each method, against
// PyTorch's logits with Hugging Face's frequencies.
void check_extension_against_pytorch(const std::string& task_name, Kernels kernels) {
    const WeightsFile start = read_weights_file(golden_file(task_name, "none"));
    const WeightsFile golden = read_weights_file(golden_file(task_name, "extension"));
    const std::vector<int> tokens = as_integers(golden.tensors.at("tokens"));  // (1, 512)
    const Task task = make_task(task_name);
    TransformerConfig config;
    config.vocab = task.vocab;
    config.outputs = task.outputs();
    int compared = 0;
    for (const std::string scheme : {"rope", "rope:1000000"})
        for (const std::string method : {"pi", "ntk", "yarn"})
            for (const int64_t T : {int64_t{128}, int64_t{512}}) {
                std::string name = "logits." + method + "." + scheme + "." + std::to_string(T);
                std::replace(name.begin(), name.end(), ':', '-');
                INFO(name);
                Generator unused(0);
                const auto made_model =
                    made(kernels, config, make_position_encoding(parse_position_spec(scheme), config.dim, config.heads, unused), unused);
                Transformer& model = *made_model;
                load_parameters(model, start, golden_file(task_name, "none"));
                const PositionSpec spec = parse_position_spec(scheme);
                const auto extended = extend_context(config.dim / config.heads, spec.has_value ? spec.value : 10000.0,
                                                     RopePairing::interleaved, method_kind(method),
                                                     static_cast<double>(T) / 32.0, 32);
                ForwardOptions options;
                options.position = extended.get();
                const std::vector<int> prefix(tokens.begin(), tokens.begin() + T);
                const Value logits = model.forward(prefix, 1, T, options);  // (1, T, n_out)
                CHECK(error_on_scale(logits.value(), golden.tensors.at(name)) <= tolerance);
                ++compared;
            }
    CHECK(compared == 12);
}

}  // namespace

TEST_CASE("golden: PI, NTK and YaRN give every pair Hugging Face's frequency, and YaRN its attention factor",
          "[golden][extension]") {
    // hf_rope_scaling.json holds Hugging Face's float32 results; ours are in double, so each pair is
    // held to 1e-6 of its own size (float32 rounds to 6e-8; a wrong ramp or base is off by percents).
    std::ifstream in(std::string(WAI_GOLDEN_DIR) + "/hf_rope_scaling.json");
    REQUIRE(in);
    const nlohmann::json document = nlohmann::json::parse(in);
    int cases = 0, yarn_cases = 0;
    for (const nlohmann::json& c : document.at("cases")) {
        const std::string method = c.at("method");
        const int64_t H = c.at("head_dim"), L = c.at("original_max_position_embeddings");
        const double base = c.at("base"), s = c.at("factor");
        INFO(method << ", H " << H << ", base " << base << ", s " << s << ", L " << L);
        const auto extended = extend_context(H, base, RopePairing::interleaved, method_kind(method), s, L);
        const RotaryPositions& rope = *extended;
        const std::vector<double> hf = c.at("inv_freq");
        REQUIRE(rope.frequencies.size() == hf.size());
        for (size_t i = 0; i < hf.size(); ++i) {
            INFO("pair " << i);
            CHECK(rope.frequencies[i] == Approx(hf[i]).epsilon(1e-6));
        }
        CHECK(rope.query_key_scale == Approx(c.at("attention_factor").get<double>()).epsilon(1e-7));
        if (method == "yarn") {
            const std::vector<double> hf_kept = c.at("kept"), kept = yarn_kept_fractions(H, base, L);
            REQUIRE(kept.size() == hf_kept.size());
            for (size_t i = 0; i < kept.size(); ++i) CHECK(kept[i] == Approx(hf_kept[i]).margin(1e-6));
            CHECK(yarn_query_key_scale(s) == c.at("attention_factor").get<double>());
            ++yarn_cases;
        }
        ++cases;
    }
    CHECK(cases == 36);  // 2 heads and lengths x 2 bases x 3 factors x 3 methods
    CHECK(yarn_cases == 12);
}

TEST_CASE("golden: RoPE models extended to 128 and 512 with PI, NTK and YaRN match PyTorch's logits, both kernels",
          "[golden][extension]") {
    for (const char* task : {"lag", "seen"})
        for (const Kernels kernels : {Kernels::plain, Kernels::fast})
            DYNAMIC_SECTION(task << " " << kernels_name(kernels)) {
                check_extension_against_pytorch(task, kernels);
            }
}

TEST_CASE("golden: both tasks, every scheme and t5, both kernels settings, match PyTorch (logits, loss, gradients, AdamW step)",
          "[golden]") {
    for (const char* task : {"lag", "seen"})
        for (const Kernels kernels : {Kernels::plain, Kernels::fast})
            for (const char* scheme :
                 {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625", "t5"})
                DYNAMIC_SECTION(task << " " << kernels_name(kernels) << " " << scheme) {
                    check_against_pytorch(task, scheme, kernels);
                }
}
