// Tests of the kernels choice (startup/kernels_choice.hpp): the plain Transformer (nn/) against the fast
// tree's FastTransformer (fast/fast_transformer.hpp). For every scheme and both tasks, one training step
// from the same weights and batch gives the same logits, loss and gradients within float rounding, and
// the same weights after one AdamW step; a 2000-step lag rope run of train_position gives the same
// result line on both; the two models have the same parameters, drawn alike; the choice's parsing.
// Leaves out each fast kernel on its own (test_fast_kernels.cpp) and PyTorch (test_golden.cpp).
#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nn/adamw.hpp"
#include "fast/fast_transformer.hpp"
#include "startup/kernels_choice.hpp"
#include "autograd/ops.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "tests/helpers.hpp"
#include "tests/programs.hpp"

using namespace wai;
using namespace wai::testing;

namespace {

// Tolerance: the two paths add the same numbers in different orders (a fused gemm's alpha instead of
// a scale after it, one gemm per q/k/v part instead of one for all three), so they differ by a few
// float32 roundings (~1e-7) times the size of what is summed. Each tensor is compared on its own
// scale, max |fast - plain| / max |plain|, to 1e-5: a wrong term or a lost gradient is of order 1.
constexpr double tolerance = 1e-5;

double error_on_scale(const Tensor& a, const Tensor& b) {
    REQUIRE(a.shape() == b.shape());
    double difference = 0.0, scale = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        difference = std::max(difference, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return scale > 0.0 ? difference / scale : difference;
}

struct Step {
    Tensor logits, loss;
    std::vector<std::pair<std::string, Tensor>> gradients, updated;
};

// One training step of the experiment's model (its sizes and initial weights for this seed) on one
// batch of 8 sequences of 32, with the kernels given.
Step one_step(RunConfig config, Kernels kernels) {
    config.make_transformer = transformer_maker(kernels);
    const auto model = make_model(config);
    Generator data(7);
    const Batch batch = make_task(config.task).sample(data, 8, config.train_length);
    const Value logits = model->forward(batch.tokens, batch.B, batch.T);
    Value loss = cross_entropy(logits, batch.targets);
    AdamW optimizer(model->parameters());
    optimizer.zero_grad();
    loss.backward();
    Step step{logits.value(), loss.value(), {}, {}};
    for (const auto& [name, parameter] : model->named_parameters()) step.gradients.emplace_back(name, parameter.grad());
    optimizer.step();
    for (const auto& [name, parameter] : model->named_parameters()) step.updated.emplace_back(name, parameter.value());
    return step;
}

// The first AdamW step moves a weight by lr * g / (|g| + eps), about lr times the sign of g. Where g
// is float32 noise around zero (the key bias's gradient is zero in exact arithmetic: softmax ignores
// a constant added to a row of scores), the two paths' signs may differ, and so may the steps, by up
// to 2 lr. Those entries, whose gradient is below 1e-4 of the tensor's largest, are held to 2 lr;
// every other entry to the tolerance above, on the scale of the weights.
void check_updated(const Tensor& fast, const Tensor& plain, const Tensor& gradient, float lr) {
    double largest_gradient = 0.0, largest_weight = 0.0;
    for (int64_t i = 0; i < gradient.numel(); ++i) {
        largest_gradient = std::max(largest_gradient, std::abs(double(gradient[i])));
        largest_weight = std::max(largest_weight, std::abs(double(plain[i])));
    }
    for (int64_t i = 0; i < plain.numel(); ++i) {
        const double difference = std::abs(double(fast[i]) - double(plain[i]));
        const bool noise = std::abs(double(gradient[i])) <= 1e-4 * largest_gradient;
        INFO("entry " << i << ": fast " << fast[i] << ", plain " << plain[i] << ", gradient " << gradient[i]);
        if (noise) CHECK(difference <= 2.0 * lr * (1.0 + 1e-3));
        else CHECK(difference <= tolerance * largest_weight);
    }
}

void check_paths_agree(const std::string& task, const std::string& scheme, int64_t heads) {
    RunConfig config;
    config.task = task, config.scheme = scheme, config.heads = heads;
    const Step fast = one_step(config, Kernels::fast);
    const Step plain = one_step(config, Kernels::plain);
    CHECK(error_on_scale(fast.logits, plain.logits) <= tolerance);
    CHECK(error_on_scale(fast.loss, plain.loss) <= tolerance);
    REQUIRE(fast.gradients.size() == plain.gradients.size());
    for (size_t i = 0; i < plain.gradients.size(); ++i) {
        INFO("grad." << plain.gradients[i].first);
        CHECK(error_on_scale(fast.gradients[i].second, plain.gradients[i].second) <= tolerance);
        INFO("updated." << plain.updated[i].first);
        check_updated(fast.updated[i].second, plain.updated[i].second, plain.gradients[i].second, config.lr);
    }
}

}  // namespace

TEST_CASE("plain and fast kernels: one training step agrees for every scheme, both tasks", "[kernels]") {
    for (const char* task : {"lag", "seen"})
        for (const char* scheme : {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625", "t5"})
            DYNAMIC_SECTION(task << " " << scheme) { check_paths_agree(task, scheme, 1); }
}

TEST_CASE("plain and fast kernels: one training step agrees with four heads", "[kernels]") {
    for (const char* scheme : {"rope", "alibi", "t5", "learned"})
        DYNAMIC_SECTION(scheme) { check_paths_agree("lag", scheme, 4); }
}

TEST_CASE("plain and fast kernels: a 2000-step lag rope run gives the same result line", "[kernels][slow]") {
    // The chapter's run, through the real program, once on each path: the two start together on one
    // thread each (the two cores), as make experiment runs two at a time.
    Folder folder("kernels_2000_steps");
    const auto [plain, fast] = run_two_at_once(folder, words("lag rope 0 --kernels plain --threads 1"),
                                               words("lag rope 0 --kernels fast --threads 1"));
    INFO("plain: " << plain.out << plain.err);
    INFO("fast:  " << fast.out << fast.err);
    REQUIRE(plain.status == 0);
    CHECK(plain.out == fast.out);
    CHECK(plain.out.find("length 32 / 64 / 128: 1.000 /") != std::string::npos);  // it learned lag at the training length
}

TEST_CASE("plain and fast kernels: short runs give the same result line, every scheme, extensions, 256 and 512",
          "[kernels]") {
    // Training, evaluation (no graph), log-length scaling and context extension, on both paths.
    struct Run {
        const char* task;
        const char* scheme;
        const char* extension;
    };
    for (const Run& r : {Run{"lag", "none", ""}, Run{"seen", "sinusoid", ""}, Run{"lag", "learned", ""},
                         Run{"seen", "alibi", ""}, Run{"lag", "t5", ""}, Run{"seen", "rope", "pi"}, Run{"lag", "rope", "ntk"},
                         Run{"seen", "rope:1000000", "yarn"}}) {
        RunConfig config;
        config.task = r.task, config.scheme = r.scheme, config.extension = r.extension;
        config.steps = 30, config.batch = 8, config.dim = 16, config.heads = 2, config.mlp_hidden = 32;
        config.eval_sequences = 16;
        config.test_lengths = std::string(r.scheme) == "learned" ? std::vector<int64_t>{32, 128} : std::vector<int64_t>{32, 256, 512};
        std::string line[2];
        for (const Kernels kernels : {Kernels::plain, Kernels::fast}) {
            config.make_transformer = transformer_maker(kernels);
            line[kernels == Kernels::fast] = format_result_line(config, run_experiment(config));
        }
        INFO(r.task << " " << r.scheme << " " << r.extension);
        CHECK(line[0] == line[1]);
    }
}

TEST_CASE("the kernels choice: the model each makes, the same parameters drawn alike, and parsing", "[kernels]") {
    CHECK(default_kernels() == Kernels::fast);
    RunConfig config;
    config.scheme = "learned";  // a scheme with parameters of its own, drawn before the model's
    const auto plain = make_model(config);
    CHECK(dynamic_cast<const fast::FastTransformer*>(plain.get()) == nullptr);
    config.make_transformer = transformer_maker(Kernels::fast);
    const auto fast = make_model(config);
    CHECK(dynamic_cast<const fast::FastTransformer*>(fast.get()) != nullptr);
    const auto plain_parameters = plain->named_parameters(), fast_parameters = fast->named_parameters();
    REQUIRE(plain_parameters.size() == fast_parameters.size());
    for (size_t i = 0; i < plain_parameters.size(); ++i) {
        INFO(plain_parameters[i].first);
        CHECK(plain_parameters[i].first == fast_parameters[i].first);
        CHECK(numbers(plain_parameters[i].second.value()) == numbers(fast_parameters[i].second.value()));
    }
    CHECK(transformer_maker(Kernels::plain) == nullptr);
    CHECK(parse_kernels("plain") == Kernels::plain);
    CHECK(parse_kernels("fast") == Kernels::fast);
    CHECK(std::string(kernels_name(Kernels::plain)) == "plain");
    CHECK_THAT(invalid_argument_message([] { parse_kernels("fused"); }),
               Catch::Matchers::ContainsSubstring("'fused'") && Catch::Matchers::ContainsSubstring("plain") && Catch::Matchers::ContainsSubstring("fast"));
}
