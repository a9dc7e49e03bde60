// The checker of the log-length scaling exercise: your factor against the library's
// (positional/length_scaling.hpp) at several test and training lengths, longer and shorter; then
// lesson 09's claim asked of your factor (one match among 128 keys, scores times your factor, gets
// the weight it had among 32 at the score a* where the factor restores it exactly); then a small
// model trained on seen with no positions, tested at 128 with every score times your factor, must
// score the chapter's last column as the library computes it. Known slips it names: the ratio upside
// down, T / T_train (linear), sqrt(T / T_train) (the 1/sqrt(d) reflex), 1 + log(T / T_train), and
// log T - log T_train (a difference of logs, not their ratio).
// Leaves out timing: the model trains 500 small steps, a few seconds.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/log_length_scale.hpp"
#include "positional/length_scaling.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/experiment.hpp"

using wai::Shape;
using wai::Tensor;

namespace {

// One query over `keys` keys, the match scored `a` and the rest 0, every score times `factor`:
// the softmax weight on the match, from the engine's own softmax.
double match_weight(int64_t keys, double a, double factor) {
    Tensor scores(Shape{1, keys});  // (1, T)
    scores[0] = static_cast<float>(a);
    return wai::softmax(wai::scale(wai::Value(scores), static_cast<float>(factor))).value()[0];
}

// The factor, one length pair at a time, with what each known slip gives there.
bool check_factors(exercise::Checker& checker) {
    const std::vector<std::pair<int64_t, int64_t>> lengths = {{128, 32}, {64, 32}, {512, 32}, {16, 32}, {32, 32}, {1000, 10}};
    bool all_right = true;
    for (const auto& [T, L] : lengths) {
        const double t = static_cast<double>(T), l = static_cast<double>(L), expected = wai::log_length_scale(T, L);
        // The library's factor is a float32: 7 digits, and the same ratio computed in double agrees to that.
        all_right &= checker.compare_number(
            "log_length_factor(" + std::to_string(T) + ", " + std::to_string(L) + ")", log_length_factor(T, L), expected,
            1e-6 * expected,
            {{"that is log(T_train) / log(T), upside down: a test longer than training needs a factor above 1, to "
              "sharpen the softmax",
              std::log(l) / std::log(t)},
             {"that is T / T_train, linear: the softmax's denominator grows like T, but the score that keeps a match's "
              "weight grows only like log T",
              t / l},
             {"that is sqrt(T / T_train), the 1/sqrt(d) reflex: the length enters through log T, not a square root",
              std::sqrt(t / l)},
             {"that is 1 + log(T / T_train): the factor is a ratio of logs, log T over log T_train", 1.0 + std::log(t / l)},
             {"that is log T - log T_train, a difference of logs (log(T / T_train)); the factor is their ratio, "
              "log T / log T_train",
              std::log(t) - std::log(l)}});
    }
    return all_right;
}

void check(exercise::Checker& checker) {
    checker.next_hint = "write log_length_factor: 1 at the training length, and growing with the log of the test length";
    if (!check_factors(checker)) return;

    // Lesson 09: with c = log 128 / log 32, e^(c a) / (e^(c a) + 127) = e^a / (e^a + 31) at
    // a* = log(127/31) / (c - 1): there the scaled 128-key row is exactly as sharp as the 32-key one.
    const int64_t train_keys = 32, test_keys = 128;
    const double yours = log_length_factor(test_keys, train_keys);
    const double exact_score =
        std::log(static_cast<double>(test_keys - 1) / (train_keys - 1)) / (wai::log_length_scale(test_keys, train_keys) - 1.0);
    checker.note("one match scored a* = " + exercise::number(exact_score) + ": weight " +
                 exercise::number(match_weight(train_keys, exact_score, 1.0)) + " among 32 keys, " +
                 exercise::number(match_weight(test_keys, exact_score, 1.0)) + " among 128 unscaled");
    // float32 softmax weights of about 0.5: 1e-5, as lesson 09 checks it.
    checker.compare_number("lesson 09: among 128 keys with your factor, the match at a* gets its 32-key weight",
                           match_weight(test_keys, exact_score, yours), match_weight(train_keys, exact_score, 1.0), 1e-5);

    // The chapter's last column, on a small model (D = 48, 500 steps of 32 sequences: scaling already
    // moves its accuracy at 128). run_experiment scores it with the library's factor; the same weights
    // are scored with yours, on the same test sequences.
    wai::set_threads(1);
    wai::RunConfig config;
    config.task = "seen", config.scheme = "none", config.steps = 500, config.batch = 32;
    config.dim = 48, config.mlp_hidden = 64, config.eval_sequences = 64, config.test_lengths = {32, 128};
    wai::RunResult trained;
    const std::unique_ptr<wai::Transformer> model = exercise::trained_model(config, trained);
    wai::ForwardOptions scaled;
    scaled.score_scale = static_cast<float>(yours);
    const wai::Evaluation scored = wai::evaluate(
        *model, wai::test_batch(wai::make_task(config.task), config.seed, 128, config.eval_sequences), config.train_length, scaled);
    checker.note("seen, no positions, trained at 32: accuracy at 128 " + exercise::number(trained.accuracy[1]) +
                 " unscaled, " + exercise::number(trained.scaled_accuracy) + " with the library's factor");
    // Your factor and the library's may round to neighbouring float32 numbers; that could turn one
    // near-tied answer at most, so one scored position is the tolerance.
    checker.compare_number("seen at 128, every score times your factor: accuracy against the library's (the chapter's last column)",
                           scored.all.value(), trained.scaled_accuracy, 1.0 / static_cast<double>(scored.all.scored));
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"log_length_scale", "log-length scaling of attention scores (Where Am I?, the last column; Chiang & Cholak)",
                                      "write log_length_factor"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
