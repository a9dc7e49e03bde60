// Tests of the training step on threads (fast/split_step.hpp): how a batch is cut into micro-batches;
// the loss and gradients of training_step (the whole batch at once) within float rounding; the same
// weights and losses, to the bit, on 1, 2, 3 and 4 threads; a batch of one micro-batch gives
// training_step's step to the bit; and an error in a micro-batch thrown after the threads, as
// training_step throws it.
// Leaves out the threads' speed (make bench: bench_step --scaling).
#include "tests/catch.hpp"

#include <omp.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "fast/split_step.hpp"
#include "positional/rope.hpp"
#include "startup/kernels_choice.hpp"
#include "tasks/experiment.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;

namespace {

// The chapter's model made small, on a batch of 64 (4 micro-batches of 16).
RunConfig small_config(const std::string& task, const std::string& scheme) {
    RunConfig config;
    config.task = task, config.scheme = scheme;
    config.dim = 16, config.mlp_hidden = 32, config.heads = 2, config.batch = 64, config.train_length = 16;
    config.make_transformer = transformer_maker(Kernels::fast);
    return config;
}

struct Trained {
    std::vector<double> losses;
    std::vector<Tensor> weights, gradients;
};

// `steps` steps on `threads` OpenMP threads, with the split step or training_step.
Trained train_steps(const RunConfig& config, int threads, int steps, bool split) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    const auto model = make_model(config);
    TrainingState state(*model, config);
    const StepFunction step = split ? fast::make_split_step(*model, config) : StepFunction(training_step);
    Trained t;
    for (int s = 0; s < steps; ++s) t.losses.push_back(step(*model, state.optimizer, state.task, state.data, config));
    for (const Value& p : model->parameters()) {
        t.weights.push_back(p.value());
        t.gradients.push_back(p.grad());
    }
    omp_set_num_threads(before);
    return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape()) return false;
    for (int64_t i = 0; i < a.numel(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

}  // namespace

TEST_CASE("the split step: a batch is cut into 1, 2, 4 or 8 micro-batches of at least 16 sequences", "[split]") {
    CHECK(fast::micro_batches(64) == 4);  // the chapter's batch
    CHECK(fast::micro_batches(128) == 8);
    CHECK(fast::micro_batches(4096) == 8);
    CHECK(fast::micro_batches(32) == 2);
    CHECK(fast::micro_batches(48) == 2);  // 4 of 12 would be too small
    CHECK(fast::micro_batches(31) == 1);
    CHECK(fast::micro_batches(24) == 1);
    CHECK(fast::micro_batches(8) == 1);
    CHECK(fast::micro_batches(1) == 1);
    CHECK(fast::micro_batches(96) == 4);  // 8 does not divide 96 into 16s: 96 / 8 = 12
}

TEST_CASE("the split step: training_step's loss and gradients within float rounding, both tasks", "[split]") {
    for (const char* task : {"lag", "seen"})
        for (const char* scheme : {"rope", "learned", "alibi", "t5"}) {
            INFO(task << " " << scheme);
            RunConfig config = small_config(task, scheme);
            config.lr = 0.0f;  // the weights stay, so the gradients are the first step's on both
            const Trained whole = train_steps(config, 1, 1, false), split = train_steps(config, 2, 1, true);
            // The micro-batches' means, weighted by their share of the scored targets, sum to the batch's
            // mean in another order: float32 rounding, ~1e-7 of the loss.
            CHECK(std::abs(split.losses[0] - whole.losses[0]) <= 1e-5 * std::abs(whole.losses[0]));
            REQUIRE(split.gradients.size() == whole.gradients.size());
            for (size_t i = 0; i < whole.gradients.size(); ++i) {
                INFO("parameter " << i);
                double difference = 0, scale = 0;
                for (int64_t j = 0; j < whole.gradients[i].numel(); ++j) {
                    difference = std::max(difference, std::abs(double(split.gradients[i][j]) - double(whole.gradients[i][j])));
                    scale = std::max(scale, std::abs(double(whole.gradients[i][j])));
                }
                // As tests/test_kernels_choice.cpp: on each tensor's own scale, 1e-5; a lost micro-batch
                // or a share counted twice is of order 1.
                CHECK(difference <= 1e-5 * scale);
            }
        }
}

TEST_CASE("the split step: training_step's losses over steps, the copies taking each update", "[split]") {
    // A copy that kept its first weights (the position table's too) would score its micro-batches
    // with a model some updates old: by the fifth step its loss differs from training_step's by
    // far more than the sums' order does.
    for (const char* scheme : {"learned", "t5", "rope"}) {
        INFO(scheme);
        const RunConfig config = small_config("lag", scheme);
        const Trained whole = train_steps(config, 1, 5, false), split = train_steps(config, 2, 5, true);
        for (size_t s = 0; s < whole.losses.size(); ++s) {
            INFO("step " << s + 1 << ": " << split.losses[s] << " against " << whole.losses[s]);
            CHECK(std::abs(split.losses[s] - whole.losses[s]) <= 1e-4 * std::abs(whole.losses[s]));
        }
    }
}

TEST_CASE("the split step: the same weights and losses, to the bit, on 1, 2, 3 and 4 threads", "[split]") {
    for (const char* scheme : {"rope", "learned"}) {
        const RunConfig config = small_config("seen", scheme);
        const Trained one = train_steps(config, 1, 4, true);
        for (int threads : {2, 3, 4}) {
            INFO(scheme << ", " << threads << " threads");
            const Trained many = train_steps(config, threads, 4, true);
            CHECK(many.losses == one.losses);
            REQUIRE(many.weights.size() == one.weights.size());
            for (size_t i = 0; i < one.weights.size(); ++i) CHECK(same_bits(many.weights[i], one.weights[i]));
        }
    }
}

TEST_CASE("the split step: a batch of one micro-batch is training_step's step, to the bit", "[split]") {
    RunConfig config = small_config("lag", "rope");
    config.batch = 16;
    REQUIRE(fast::micro_batches(config.batch) == 1);
    const Trained whole = train_steps(config, 2, 3, false), split = train_steps(config, 2, 3, true);
    CHECK(split.losses == whole.losses);
    for (size_t i = 0; i < whole.weights.size(); ++i) CHECK(same_bits(split.weights[i], whole.weights[i]));
}

namespace {
// RoPE that fails when it turns queries and keys on the last thread of the step's team: on one
// thread, every micro-batch; on two, those of the second thread.
struct FailingRope : RotaryPositions {
    using RotaryPositions::RotaryPositions;
    Value rotate_queries_keys(const Value& x) const override {
        if (omp_get_thread_num() == omp_get_num_threads() - 1) throw std::invalid_argument("a micro-batch's own error");
        return RotaryPositions::rotate_queries_keys(x);
    }
};
}  // namespace

TEST_CASE("the split step: an error in a micro-batch is thrown after the threads, as training_step throws it", "[split]") {
    RunConfig config = small_config("lag", "rope");
    config.make_transformer = nullptr;  // the plain model turns queries and keys with the scheme's own op
    config.custom_position = [](int64_t dim, int64_t heads, Generator&) -> std::unique_ptr<PositionEncoding> {
        return std::make_unique<FailingRope>(dim / heads, 10000.0);
    };
    for (int threads : {1, 2}) {
        INFO(threads << " threads");
        const int before = omp_get_max_threads();
        omp_set_num_threads(threads);
        const auto model = make_model(config);
        TrainingState state(*model, config);
        const StepFunction step = fast::make_split_step(*model, config);
        CHECK_THROWS_WITH(step(*model, state.optimizer, state.task, state.data, config), "a micro-batch's own error");
        omp_set_num_threads(before);
    }
}
