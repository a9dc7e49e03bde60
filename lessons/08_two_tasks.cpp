// Lesson 08: the chapter's two tasks and its experiment. Prints a batch of each task (tokens, targets,
// which positions are scored) and checks the targets against a plain recount; derives seen's
// always-"no" baseline; trains RoPE briefly on each task with the experiment's own code; and explains
// `make experiment`. Mirrors where-am-i, "A test: two tasks, four times the length".
// Leaves out the full experiment (28 runs of 2000 steps: `make experiment`) and the other six schemes.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"

namespace {

// One sequence of a batch as three rows: position, token, target ('.' where not scored).
void print_sequence(const wai::Batch& batch, int64_t b) {
    std::printf("    position");
    for (int64_t t = 0; t < batch.T; ++t) std::printf(" %3lld", static_cast<long long>(t));
    std::printf("\n    token   ");
    for (int64_t t = 0; t < batch.T; ++t) std::printf(" %3d", batch.tokens[b * batch.T + t]);
    std::printf("\n    target  ");
    for (int64_t t = 0; t < batch.T; ++t) {
        const int target = batch.targets[b * batch.T + t];
        if (target == wai::ignore_index) std::printf("   .");
        else std::printf(" %3d", target);
    }
    std::printf("\n");
}

// lag's rule, recounted: the token `lag` places back, and no target where there is none.
bool lag_targets_hold(const wai::Batch& batch, int64_t lag) {
    for (int64_t b = 0; b < batch.B; ++b)
        for (int64_t t = 0; t < batch.T; ++t) {
            const int expected = t < lag ? wai::ignore_index : batch.tokens[b * batch.T + t - lag];
            if (batch.targets[b * batch.T + t] != expected) return false;
        }
    return true;
}

// seen's rule, recounted by looking back along the sequence: 1 if this token occurred earlier, else 0.
bool seen_targets_hold(const wai::Batch& batch) {
    for (int64_t b = 0; b < batch.B; ++b)
        for (int64_t t = 0; t < batch.T; ++t) {
            int expected = 0;
            for (int64_t earlier = 0; earlier < t; ++earlier)
                if (batch.tokens[b * batch.T + earlier] == batch.tokens[b * batch.T + t]) expected = 1;
            if (batch.targets[b * batch.T + t] != expected) return false;
        }
    return true;
}

// The share of targets that are 0: what always answering "no" scores on this batch.
double share_of_zeros(const wai::Batch& batch) {
    int64_t zeros = 0;
    for (int target : batch.targets) zeros += target == 0;
    return static_cast<double>(zeros) / static_cast<double>(batch.targets.size());
}

// The same, expected from the vocabulary alone: the token at position k is new with probability
// ((V-1)/V)^k, averaged over the T positions.
double expected_share_of_zeros(int64_t vocab, int64_t T) {
    double total = 0.0;
    for (int64_t k = 0; k < T; ++k) total += std::pow(static_cast<double>(vocab - 1) / static_cast<double>(vocab), k);
    return total / static_cast<double>(T);
}

wai::RunResult short_run(const wai::RunConfig& config) {
    std::printf("  training %s with %s, %lld steps:", config.task.c_str(), config.scheme.c_str(),
                static_cast<long long>(config.steps));
    const wai::RunResult result = wai::run_experiment(config, [](int64_t step, int64_t, double loss) {
        if (step == 1 || step % 100 == 0) {
            std::printf(" step %lld loss %.3g;", static_cast<long long>(step), loss);
            std::fflush(stdout);
        }
    });
    std::printf(" %.1f s\n  %s\n", result.seconds_training, wai::format_result_line(config, result).c_str());
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    wai::prepare_process(argv);
    lesson::take_arguments(argc, argv);
    // One thread, as each run of `make experiment` has: the timing printed at the end then predicts
    // the experiment's, and the lesson does not fight other work for the two cores.
    wai::set_threads(1);

    // lag: output the token from three positions back. Positions 0..2 have nothing three back; they
    // are not scored (their target is ignore_index), so the loss and the accuracy skip them.
    lesson::heading("lag: vocabulary 16, the target at t is the token at t - 3");
    wai::Generator generator(8);
    const wai::Task lag = wai::make_task("lag");
    print_sequence(lag.sample(generator, 1, 16), 0);
    const wai::Batch lag_check = lag.sample(generator, 64, 32);
    lesson::check(lag_targets_hold(lag_check, lag.lag),
                  "on 64 sequences of 32: every target is the token 3 back; positions 0..2 are not scored");

    // seen: say whether this token appeared earlier. Every position is scored, position 0 always "no".
    lesson::heading("seen: vocabulary 96, the target is 1 if the token appeared earlier, else 0");
    const wai::Task seen = wai::make_task("seen");
    print_sequence(seen.sample(generator, 1, 24), 0);
    const wai::Batch seen_check = seen.sample(generator, 64, 32);
    lesson::check(seen_targets_hold(seen_check),
                  "on 64 sequences of 32: every target matches a look back along the sequence");

    // Most seen targets are "no", more so in short sequences: a model that always says "no" is the
    // baseline to beat, not 50%. The chapter derives it from the vocabulary; here it is counted on the
    // experiment's own test sequences (seed 0, 256 of each length) and derived, side by side.
    lesson::heading("seen: what always answering \"no\" scores");
    for (int64_t length : {32, 64, 128}) {
        const double counted = share_of_zeros(wai::test_batch(seen, 0, length, 256));
        const double derived = expected_share_of_zeros(seen.vocab, length);
        std::printf("  length %3lld: counted on the test sequences %.3f, derived from the vocabulary %.3f\n",
                    static_cast<long long>(length), counted, derived);
        lesson::check(std::abs(counted - derived) < 0.02,
                      "length " + std::to_string(length) + ": the count agrees with the derivation to 0.02");
    }

    // A short version of the experiment's run: the chapter's model (D = 64, 2 layers, 1 head, batch 64,
    // training length 32), RoPE, but 300 steps instead of 2000 and 64 test sequences instead of 256.
    // The line is the experiment's own format. lag needs only "look exactly 3 back", which RoPE makes
    // easy: 300 steps reached 1.000 at length 32 on seeds 0 and 1 when this lesson was written, and the
    // check asks for 0.9 (chance is 1/16). seen is checked against its always-"no" baseline.
    lesson::heading("A short run of each task with RoPE (the experiment's code, fewer steps)");
    wai::RunConfig config;
    config.scheme = "rope";
    config.steps = 300;
    config.eval_sequences = 64;
    config.task = "lag";
    const wai::RunResult lag_result = short_run(config);
    config.task = "seen";
    const wai::RunResult seen_result = short_run(config);
    const double seen_baseline = share_of_zeros(wai::test_batch(seen, config.seed, 32, config.eval_sequences));
    std::printf("  seen's always-\"no\" baseline on these 64 test sequences of 32: %.3f\n", seen_baseline);
    lesson::check(lag_result.accuracy[0] > 0.9, "lag after 300 steps: accuracy at length 32 above 0.9 (chance 0.0625)");
    lesson::check(seen_result.accuracy[0] > seen_baseline + 0.05,
                  "seen after 300 steps: accuracy at length 32 at least 0.05 above always \"no\"");

    // The full experiment is `make experiment`: 2 tasks x 7 schemes (none sinusoid learned rope
    // rope:1000000 alibi:0.5 alibi:0.0625) x seeds 0 and 1, 2000 steps each, 256 test sequences per
    // length. Each run is one make target writing results/runs/TASK_SCHEME_seedN.txt; two run at once,
    // one thread each; an interrupted experiment resumes where it stopped. At the end the lines are
    // collected in the chapter's order into results/table.txt, and averaged over seeds beside the
    // chapter's published figures in results/summary.md. `make experiment SEEDS='0 1 2 3 4'` runs more.
    lesson::heading("The full experiment: make experiment");
    const double seconds_per_step = (lag_result.seconds_training + seen_result.seconds_training) / (2.0 * config.steps);
    std::printf("  this machine, now: %.1f ms per training step, so about %.0f s of training per full run of 2000 steps\n",
                1000.0 * seconds_per_step, 2000.0 * seconds_per_step);
    std::printf("  and about %.0f minutes of training for the 28 runs, two at a time (testing adds a little)\n",
                28.0 * 2000.0 * seconds_per_step / 2.0 / 60.0);
    std::printf("  results: results/table.txt (every run's line) and results/summary.md (seed averages vs the chapter)\n");
    return lesson::finish("08");
}
