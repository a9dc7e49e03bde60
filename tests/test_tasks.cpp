// Tests of tasks/: lag and seen targets, reproducible batches, evaluate()'s counting, the result
// line (written in the chapter's exact format, read back, corrupted lines refused), validate()'s
// refusals, and a tiny run_experiment that must be deterministic.
// Leaves out the train_position command line and make experiment (they need the built programs).
#include "tests/catch.hpp"

#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "startup/thread_policy.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

// A run configured as in the chapter (test lengths 32, 64, 128 and train length 32 are the defaults).
RunConfig chapter_config(const std::string& task, const std::string& scheme, uint64_t seed) {
    RunConfig config;
    config.task = task;
    config.scheme = scheme;
    config.seed = seed;
    return config;
}

RunResult figures(std::vector<double> accuracy, double past_train, double scaled) {
    RunResult result;
    result.accuracy = std::move(accuracy);
    result.past_train_accuracy = past_train;
    result.has_past_train = true;
    result.scaled_accuracy = scaled;
    return result;
}

const std::string rope_line =
    "lag  rope         seed 0: length 32 / 64 / 128: 1.000 / 1.000 / 1.000; at 128, positions past 32: 1.000; "
    "scores x log128/log32: 1.000";

}  // namespace

TEST_CASE("lag: the target is the token 3 back; positions 0..2 are not scored", "[tasks][lag]") {
    Generator generator(1);
    const Batch batch = lag_batch(generator, 4, 10, 16, 3);
    REQUIRE(batch.tokens.size() == 40);
    REQUIRE(batch.targets.size() == 40);
    for (int64_t b = 0; b < 4; ++b)
        for (int64_t t = 0; t < 10; ++t) {
            INFO("b " << b << ", t " << t);
            CHECK(batch.tokens[b * 10 + t] >= 0);
            CHECK(batch.tokens[b * 10 + t] < 16);
            CHECK(batch.targets[b * 10 + t] == (t < 3 ? ignore_index : batch.tokens[b * 10 + t - 3]));
        }
}

TEST_CASE("seen: the target is 1 exactly when the token appeared earlier", "[tasks][seen]") {
    Generator generator(2);
    const int64_t B = 3, T = 40, V = 8;  // a small vocabulary, so repeats are common
    const Batch batch = seen_batch(generator, B, T, V);
    int64_t ones = 0;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t) {
            bool earlier = false;
            for (int64_t u = 0; u < t; ++u) earlier = earlier || batch.tokens[b * T + u] == batch.tokens[b * T + t];
            INFO("b " << b << ", t " << t);
            CHECK(batch.targets[b * T + t] == (earlier ? 1 : 0));
            ones += earlier;
        }
    CHECK(ones > 0);
    CHECK(ones < B * T);  // both answers occur (each sequence's first token is always new)
}

TEST_CASE("the same generator seed gives the same batch", "[tasks]") {
    for (const char* name : {"lag", "seen"}) {
        INFO(name);
        const Task task = make_task(name);
        Generator a(7), b(7), c(8);
        const Batch first = task.sample(a, 3, 12), again = task.sample(b, 3, 12), other = task.sample(c, 3, 12);
        CHECK(first.tokens == again.tokens);
        CHECK(first.targets == again.targets);
        CHECK(first.tokens != other.tokens);
    }
    // The test batches depend only on task, seed, length and count.
    const Task lag = make_task("lag");
    CHECK(test_batch(lag, 0, 64, 4).tokens == test_batch(lag, 0, 64, 4).tokens);
    CHECK(test_batch(lag, 0, 64, 4).tokens != test_batch(lag, 1, 64, 4).tokens);
}

TEST_CASE("make_task: the chapter's vocabularies and outputs; unknown names refused", "[tasks]") {
    CHECK(make_task("lag").vocab == 16);
    CHECK(make_task("lag").outputs() == 16);
    CHECK(make_task("seen").vocab == 96);
    CHECK(make_task("seen").outputs() == 2);
    CHECK_THROWS_WITH(make_task("copy"), ContainsSubstring("unknown task 'copy'"));
}

TEST_CASE("evaluate counts the scored positions, in any chunking", "[tasks][evaluate]") {
    TransformerConfig config;
    config.vocab = 16, config.outputs = 16, config.dim = 8, config.layers = 1, config.heads = 1, config.mlp_hidden = 16;
    Generator init(3);
    const Transformer model(config, std::make_unique<PositionEncoding>(), init);
    Generator data(4);
    const Batch batch = lag_batch(data, 2, 8, 16, 3);  // 2 sequences x (8 - 3) scored positions

    const Evaluation e = evaluate(model, batch, /*cutoff=*/4);
    CHECK(e.all.scored == 2 * 5);
    CHECK(e.from_cutoff.scored == 2 * 4);  // positions 4..7
    CHECK(e.always_zero.scored == 2 * 5);
    int64_t zeros = 0;
    for (int target : batch.targets) zeros += target == 0;
    CHECK(e.always_zero.correct == zeros);
    CHECK(e.all.correct >= 0);
    CHECK(e.all.correct <= e.all.scored);
    CHECK(e.all.value() == Approx(double(e.all.correct) / 10));

    const Evaluation one_at_a_time = evaluate(model, batch, 4, {}, /*chunk=*/1);
    CHECK(one_at_a_time.all.correct == e.all.correct);
    CHECK(one_at_a_time.from_cutoff.correct == e.from_cutoff.correct);

    // seen scores every position.
    const Batch seen = seen_batch(data, 2, 8, 16);
    Transformer two_class(TransformerConfig{16, 2, 8, 1, 1, 16}, std::make_unique<PositionEncoding>(), init);
    CHECK(evaluate(two_class, seen, 4).all.scored == 16);
}

TEST_CASE("format_result_line writes the chapter's line exactly", "[tasks][result_line]") {
    CHECK(format_result_line(chapter_config("lag", "rope", 0), figures({1, 1, 1}, 1, 1)) == rope_line);
    // A scheme of the full 12 columns, a 4-letter task, and figures that need rounding.
    CHECK(format_result_line(chapter_config("seen", "alibi:0.0625", 1),
                             figures({0.99349, 0.9401, 0.8306}, 0.7804, 0.66251)) ==
          "seen alibi:0.0625 seed 1: length 32 / 64 / 128: 0.993 / 0.940 / 0.831; at 128, positions past 32: 0.780; "
          "scores x log128/log32: 0.663");
    // The numbers in the line follow the configuration.
    RunConfig other = chapter_config("lag", "none", 12);
    other.train_length = 16;
    other.test_lengths = {16, 48};
    CHECK(format_result_line(other, figures({0.5, 0.25}, 0.125, 0.0)) ==
          "lag  none         seed 12: length 16 / 48: 0.500 / 0.250; at 48, positions past 16: 0.125; "
          "scores x log48/log16: 0.000");
    // No test length past the training length: there are no such positions, and the line says so.
    RunConfig short_only = chapter_config("lag", "none", 0);
    short_only.test_lengths = {32};
    RunResult no_past = figures({0.5}, 0.0, 0.5);
    no_past.has_past_train = false;
    const std::string line = format_result_line(short_only, no_past);
    CHECK(line == "lag  none         seed 0: length 32: 0.500; at 32, positions past 32: n/a; scores x log32/log32: 0.500");
    const auto parsed = parse_result_line(line);
    REQUIRE(parsed);
    CHECK_FALSE(parsed->has_past_train);
}

TEST_CASE("parse_result_line reads a line back and refuses damaged ones", "[tasks][result_line]") {
    const auto parsed = parse_result_line(rope_line);
    REQUIRE(parsed.has_value());
    CHECK(parsed->task == "lag");
    CHECK(parsed->scheme == "rope");
    CHECK(parsed->seed == 0);
    CHECK(parsed->lengths == std::vector<int64_t>{32, 64, 128});
    CHECK(parsed->accuracy == std::vector<double>{1.0, 1.0, 1.0});
    CHECK(parsed->train_length == 32);
    CHECK(parsed->past_train == 1.0);
    CHECK(parsed->scaled == 1.0);

    const std::string chapter_line =
        "seen rope:1000000 seed 1: length 32 / 64 / 128: 0.999 / 0.967 / 0.837; at 128, positions past 32: 0.785; "
        "scores x log128/log32: 0.877";
    const auto round_trip = parse_result_line(chapter_line);
    REQUIRE(round_trip.has_value());
    RunConfig config = chapter_config(round_trip->task, round_trip->scheme, round_trip->seed);
    CHECK(format_result_line(config, figures(round_trip->accuracy, round_trip->past_train, round_trip->scaled)) ==
          chapter_line);

    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string line = rope_line;
        line.replace(line.find(from), from.size(), to);
        return line;
    };
    const std::vector<std::string> damaged{
        "",
        rope_line.substr(0, rope_line.size() - 1),              // truncated in the last figure
        rope_line.substr(0, rope_line.size() / 2),              // truncated half way
        rope_line + "\n1.000",                                  // something after the line
        replaced("1.000 / 1.000 / 1.000", "1.000 / 1.0x0 / 1.000"),
        replaced("1.000 / 1.000 / 1.000", "1.000 / 1.000"),     // two figures for three lengths
        replaced("1.000 / 1.000 / 1.000", "1.000 // 1.000 / 1.000"),
        replaced("at 128", "at 64"),                            // not the longest length
        replaced("log128/log32", "log128/log16"),               // not the train length
        replaced("seed 0", "seed x"),
        replaced("seed 0", "seed 99999999999999999999999"),     // a seed too large for any integer
        replaced("length 32", "length 99999999999999999999999"),
        // Anything but the writer's exact text: its spacing and no leading zeros (a hand-edited line
        // was copied into the table as it was).
        replaced("lag  rope", "lag rope"),
        replaced("rope         seed", "rope seed"),
        replaced("seed 0", "seed 00"),
        replaced("length 32", "length 032"),
        replaced("at 128", "at 0128"),
    };
    for (const std::string& line : damaged) {
        INFO("'" << line << "'");
        CHECK_FALSE(parse_result_line(line).has_value());
    }
}

TEST_CASE("validate refuses configurations that cannot run, with a reason", "[tasks][validate]") {
    CHECK_NOTHROW(validate(RunConfig{}));

    RunConfig lag_too_long;
    lag_too_long.lag = 32;  // train length 32: no position would be scored
    CHECK_THAT(invalid_argument_message([&] { validate(lag_too_long); }),
               ContainsSubstring("--lag 32 must be smaller than --train-len 32"));

    RunConfig bad_heads;
    bad_heads.dim = 8, bad_heads.heads = 3;
    CHECK_THAT(invalid_argument_message([&] { validate(bad_heads); }), ContainsSubstring("--heads 3 does not divide --dim 8"));

    RunConfig past_table;
    past_table.scheme = "learned";
    past_table.test_lengths = {32, 64, 129};
    CHECK_THAT(invalid_argument_message([&] { validate(past_table); }),
               ContainsSubstring("test length 129 is past the learned table's 128 rows"));

    RunConfig unknown_task;
    unknown_task.task = "copy";
    CHECK_THAT(invalid_argument_message([&] { validate(unknown_task); }), ContainsSubstring("unknown task 'copy'"));

    RunConfig bad_scheme;
    bad_scheme.scheme = "rope:abc";
    CHECK_THAT(invalid_argument_message([&] { validate(bad_scheme); }), ContainsSubstring("valid forms"));
}

TEST_CASE("a tiny run_experiment: three accuracies in [0, 1], the same on every call", "[tasks][experiment]") {
    RunConfig config;
    config.scheme = "rope";
    config.steps = 3, config.batch = 2, config.dim = 8, config.eval_sequences = 2;
    int64_t progress_calls = 0;
    const RunResult first = run_experiment(config, [&](int64_t step, int64_t total, double loss) {
        ++progress_calls;
        CHECK(step == progress_calls);
        CHECK(total == 3);
        CHECK(std::isfinite(loss));
    });
    CHECK(progress_calls == 3);
    REQUIRE(first.accuracy.size() == 3);
    for (double a : first.accuracy) {
        CHECK(a >= 0.0);
        CHECK(a <= 1.0);
    }
    for (double a : {first.past_train_accuracy, first.scaled_accuracy, first.always_no_accuracy}) {
        CHECK(a >= 0.0);
        CHECK(a <= 1.0);
    }
    CHECK(std::isfinite(first.final_loss));

    const RunResult second = run_experiment(config);
    CHECK(second.accuracy == first.accuracy);
    CHECK(second.past_train_accuracy == first.past_train_accuracy);
    CHECK(second.scaled_accuracy == first.scaled_accuracy);
    CHECK(second.final_loss == first.final_loss);
}

namespace {
int nan_at_step = 0;  // the step whose loss nan_step_maker's step gives as NaN
StepFunction nan_step_maker(Transformer&, const RunConfig&) {
    return [step = 0](Transformer&, AdamW&, const Task&, Generator&, const RunConfig&) mutable {
        return ++step == nan_at_step ? std::nan("") : 1.0;
    };
}
}  // namespace

TEST_CASE("a loss that is not finite stops training, and the cure named fits the step", "[tasks][experiment]") {
    RunConfig config;
    config.steps = 3, config.batch = 2, config.dim = 8, config.eval_sequences = 2;
    config.make_step = nan_step_maker;
    const std::unique_ptr<Transformer> made = make_model(config);
    Transformer& model = *made;
    RunResult result;
    // The first step's loss comes from the starting weights: no learning rate made it.
    nan_at_step = 1;
    try {
        train(model, config, result);
        FAIL("a NaN loss at step 1 did not stop training");
    } catch (const Diverged& e) {
        CHECK(std::string(e.what()).find("training stopped at step 1: the loss is nan (the first step's loss comes before "
                                         "any update, so not from --lr") == 0);
        CHECK(std::string(e.what()).find("smaller --lr") == std::string::npos);
    }
    nan_at_step = 2;
    try {
        train(model, config, result);
        FAIL("a NaN loss at step 2 did not stop training");
    } catch (const Diverged& e) {
        CHECK(std::string(e.what()) == "training stopped at step 2: the loss is nan (try a smaller --lr)");
    }
}

TEST_CASE("a tiny run_experiment runs for every scheme of the chapter and both tasks", "[tasks][experiment]") {
    for (const char* task : {"lag", "seen"})
        for (const char* scheme : {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"})
            check_tiny_run(task, scheme);
}

TEST_CASE("threads_for_free_cores: no more threads than the cores other processes left idle", "[tasks][threads]") {
    // Two readings 100 jiffies apart per CPU: user nice system idle iowait irq softirq steal.
    const auto stat = [](long long busy0, long long idle0, long long busy1, long long idle1) {
        return "cpu  0 0 0 0 0 0 0 0\ncpu0 " + std::to_string(busy0) + " 0 0 " + std::to_string(idle0) +
               " 0 0 0 0 0 0\ncpu1 " + std::to_string(busy1) + " 0 0 " + std::to_string(idle1) + " 0 0 0 0 0 0\nintr 5\n";
    };
    const std::string before = stat(1000, 5000, 2000, 6000);
    cpu_set_t both, first;
    CPU_ZERO(&both);
    CPU_SET(0, &both);
    CPU_SET(1, &both);
    CPU_ZERO(&first);
    CPU_SET(0, &first);
    CHECK(wai::threads_for_free_cores(2, before, stat(1003, 5097, 2002, 6098), both) == 2);  // idle
    CHECK(wai::threads_for_free_cores(2, before, stat(1004, 5096, 2100, 6000), both) == 1);  // one core busy
    CHECK(wai::threads_for_free_cores(2, before, stat(1060, 5040, 2070, 6030), both) == 1);  // both half busy
    CHECK(wai::threads_for_free_cores(2, before, stat(1100, 5000, 2100, 6000), both) == 1);  // both busy: at least 1
    CHECK(wai::threads_for_free_cores(4, before, stat(1003, 5097, 2002, 6098), both) == 2);  // never more than free
    CHECK(wai::threads_for_free_cores(2, before, stat(1004, 5096, 2100, 6000), first) == 1);  // only cpu0 counts
    CHECK(wai::threads_for_free_cores(2, before, "no cpu lines\n", both) == 2);               // unreadable: as asked
    CHECK(wai::threads_for_free_cores(1, before, stat(1003, 5097, 2002, 6098), both) == 1);
}

TEST_CASE("mine, your own scheme as shipped, is RoPE under its own name: the same figures, its own result line",
          "[tasks][experiment]") {
    RunConfig config;
    config.steps = 3, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 8, config.eval_sequences = 4;
    config.scheme = "rope";
    const RunResult rope = run_experiment(config);
    config.scheme = "mine";
    const RunResult mine = run_experiment(config);
    CHECK(mine.accuracy == rope.accuracy);
    CHECK(mine.past_train_accuracy == rope.past_train_accuracy);
    CHECK(mine.scaled_accuracy == rope.scaled_accuracy);
    CHECK(mine.final_loss == rope.final_loss);
    const std::string line = format_result_line(config, mine);
    CHECK(line.rfind("lag  mine ", 0) == 0);
    const auto parsed = parse_result_line(line);
    REQUIRE(parsed);
    CHECK(parsed->scheme == "mine");
    CHECK(make_model(config)->position->spec() == "mine");
    config.heads = 8;  // head dimension 1: mine holds a RoPE, which needs it even
    CHECK_THROWS_WITH(validate(config), Catch::Matchers::ContainsSubstring("mine (positional/mine.cpp) holds a RoPE"));
}

TEST_CASE("attention_reach: the queries past a length, where each puts its largest weight, and the mean distance", "[tasks]") {
    // (4, 4), row = query m, keys 0..m; the queries from 1 on, lag 1.
    const std::vector<float> map = {1.0f, 0, 0, 0,        //
                                    0.2f, 0.8f, 0, 0,     // m 1: largest at n 1 (0 back); distance 0.2 x 1
                                    0.1f, 0.7f, 0.2f, 0,  // m 2: largest at n 1 (1 back); 0.1 x 2 + 0.7 x 1
                                    0, 0, 0.9f, 0.1f};    // m 3: largest at n 2 (1 back); 0.9 x 1
    const wai::AttentionReach reach = wai::attention_reach(map.data(), 4, 1, 1);
    CHECK(reach.queries == 3);
    CHECK(reach.lag_back == 2);
    CHECK(reach.mean_distance == Approx((0.2 + 0.9 + 0.9) / 3).epsilon(1e-6));
    const wai::AttentionReach none = wai::attention_reach(map.data(), 4, 4, 1);
    CHECK(none.queries == 0);
    CHECK(none.mean_distance == 0.0);
}
