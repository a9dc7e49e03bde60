// The checker of the context extension exercise: your position interpolation and NTK-aware
// frequencies against the library's (positional/position_interpolation.hpp, ntk_scaling.hpp,
// rope_frequencies) for several head sizes, bases and factors s; the property that defines each (PI:
// every pair divided by s; NTK: pair 0 unchanged, the last pair divided by exactly s); then a small
// RoPE model trained on lag at 32, run at 128 with your frequencies put into its RotaryPositions and
// with the library's extend_context (positional/context_extension.hpp): the same logits, the same
// accuracy. Known slips it names: multiplying by s, dividing only pair 0, NTK's base times s (the
// power H/(H-2) left out, the same as H in place of H - 2), the power upside down, H - 2 in theta's
// exponent instead of the base's, the base divided instead of multiplied, PI in place of NTK, and
// -2i/H divided in integers (every pair at pair 0's frequency, in PI and in NTK).
// Leaves out YaRN (lesson 11 shows it) and the training time: 200 small steps, a second or two.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "lessons/exercises/context_extension.hpp"
#include "lessons/exercises/exercise.hpp"
#include "positional/context_extension.hpp"
#include "positional/ntk_scaling.hpp"
#include "positional/position_interpolation.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/experiment.hpp"

using Frequencies = std::vector<double>;
using KnownFrequencies = std::vector<std::pair<std::string, Frequencies>>;

namespace {

// Both sides are double, by formulas that may group the powers differently (b'^(-2i/H) or
// base^(-2i/H) * s^(-2i/(H-2))): they agree to about 1e-15 relative, and every slip is off by far
// more than 1e-9.
constexpr double relative_tolerance = 1e-9;

bool same_frequencies(const Frequencies& got, const Frequencies& expected) {
    if (got.size() != expected.size()) return false;
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - expected[i]) <= relative_tolerance * std::abs(expected[i]))) return false;
    return true;
}

// got against expected pair by pair; on the first difference, the pair, both numbers, and the hint of
// the first known slip got matches at every pair.
bool compare_frequencies(exercise::Checker& checker, const std::string& what, const Frequencies& got,
                         const Frequencies& expected, const KnownFrequencies& slips) {
    if (same_frequencies(got, expected)) return checker.ok(what);
    std::string hint;
    for (const auto& [slip_hint, slip] : slips)
        if (same_frequencies(got, slip)) {
            hint = slip_hint;
            break;
        }
    if (got.size() != expected.size())
        return checker.wrong(what, std::to_string(got.size()) + " frequencies, expected H/2 = " + std::to_string(expected.size()), hint);
    size_t i = 0;
    while (std::abs(got[i] - expected[i]) <= relative_tolerance * std::abs(expected[i])) ++i;
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, ": expected %.10g, got %.10g", expected[i], got[i]);
    return checker.wrong(what, "first differs at pair " + std::to_string(i) + numbers, hint);
}

Frequencies times(Frequencies theta, double factor, size_t pairs_changed) {
    for (size_t i = 0; i < std::min(pairs_changed, theta.size()); ++i) theta[i] *= factor;
    return theta;
}

// theta_i = new_base^(-2i / exponent_denominator): rope_frequencies when the denominator is H.
Frequencies with_base(int64_t H, double new_base, double exponent_denominator) {
    Frequencies theta(H / 2);
    for (int64_t i = 0; i < H / 2; ++i) theta[i] = std::pow(new_base, -2.0 * i / exponent_denominator);
    return theta;
}

struct Case {
    int64_t H;
    double base, s;
    std::string name() const {
        return "(H = " + std::to_string(H) + ", base " + exercise::number(base) + ", s = " + exercise::number(s) + ")";
    }
};
const Case cases[] = {{64, 10000.0, 4.0}, {16, 10000.0, 2.0}, {128, 500000.0, 8.0}, {8, 100.0, 3.0}};

bool check_interpolation(exercise::Checker& checker) {
    bool right = true;
    for (const Case& c : cases) {
        const Frequencies theta = wai::rope_frequencies(c.H, c.base);
        right &= compare_frequencies(
            checker, "interpolated_frequencies " + c.name(), interpolated_frequencies(c.H, c.base, c.s),
            wai::position_interpolation(theta, c.s),
            {{"every pair is multiplied by s: that turns faster, and reaches angles training never showed sooner; "
              "interpolation divides",
              times(theta, c.s, theta.size())},
             {"only pair 0 is divided by s: interpolation reads every position m as m / s, so every pair slows",
              times(theta, 1.0 / c.s, 1)},
             {"those are RoPE's own frequencies: nothing is divided by s", theta},
             {"every pair has pair 0's frequency, 1 / s: -2i/H is an integer division here (C++ drops the fraction of "
              "int / int, so it is 0 for every pair below H/2); write -2.0 * i / H",
              Frequencies(theta.size(), 1.0 / c.s)}});
    }
    const Case& lesson = cases[0];  // lesson 11's head
    const Frequencies yours = interpolated_frequencies(lesson.H, lesson.base, lesson.s);
    const Frequencies theta = wai::rope_frequencies(lesson.H, lesson.base);
    // theta_i / yours_i at every pair, against s: the first pair where it is not s is the one reported.
    size_t i = 0;
    while (i < theta.size() && i < yours.size() && std::abs(theta[i] / yours[i] - lesson.s) < 1e-12 * lesson.s) ++i;
    const double ratio = i < theta.size() && i < yours.size() ? theta[i] / yours[i] : lesson.s;
    right &= checker.compare_number("yours divides every pair's frequency by exactly s " + lesson.name() +
                                        (i < theta.size() ? ": RoPE's over yours at pair " + std::to_string(i) : ""),
                                    ratio, lesson.s, 1e-12 * lesson.s);
    return right;
}

bool check_ntk(exercise::Checker& checker) {
    bool right = true;
    for (const Case& c : cases) {
        const double H = static_cast<double>(c.H), k = H / (H - 2.0);
        right &= compare_frequencies(
            checker, "ntk_frequencies " + c.name(), ntk_frequencies(c.H, c.base, c.s),
            wai::rope_frequencies(c.H, wai::ntk_scaled_base(c.base, c.H, c.s)),
            {{"that is base * s, the power k = 1 (H in place of H - 2, or H / (H - 2) divided in integers, which is 1): the last pair then slows by s^((H-2)/H), "
              "not s; k = H / (H - 2)",
              with_base(c.H, c.base * c.s, H)},
             {"the power is upside down: k = H / (H - 2), not (H - 2) / H", with_base(c.H, c.base * std::pow(c.s, 1.0 / k), H)},
             {"H - 2 is in theta's exponent: the new base gives theta_i = b'^(-2i/H), as RoPE's does; H - 2 belongs in "
              "the power of s",
              with_base(c.H, c.base * std::pow(c.s, k), H - 2.0)},
             {"the base is divided by s^k: every pair turns faster; NTK raises the base", with_base(c.H, c.base / std::pow(c.s, k), H)},
             {"that is position interpolation: every pair divided by s; NTK keeps pair 0 and slows the last by s",
              wai::position_interpolation(wai::rope_frequencies(c.H, c.base), c.s)},
             {"every pair has frequency 1, as pair 0 does: -2i/H is an integer division here (C++ drops the fraction "
              "of int / int, so it is 0 for every pair below H/2); write -2.0 * i / H",
              Frequencies(static_cast<size_t>(c.H / 2), 1.0)}});
    }
    const Case& lesson = cases[0];
    const Frequencies yours = ntk_frequencies(lesson.H, lesson.base, lesson.s);
    const Frequencies theta = wai::rope_frequencies(lesson.H, lesson.base);
    const bool defined = yours.size() == theta.size();
    right &= checker.compare_number("yours keeps pair 0's frequency " + lesson.name(), defined ? yours.front() : NAN, theta.front(), 1e-12);
    right &= checker.compare_number("yours divides the last pair's frequency by exactly s " + lesson.name(),
                                    defined ? theta.back() / yours.back() : NAN, lesson.s, 1e-9 * lesson.s);
    return right;
}

void check(exercise::Checker& checker) {
    checker.next_hint = "start with interpolated_frequencies: RoPE's theta_i = base^(-2i/H), each divided by s";
    if (!check_interpolation(checker)) return;
    checker.next_hint = "interpolated_frequencies is right; now ntk_frequencies: find the power k of s in the new base";
    if (!check_ntk(checker)) return;

    // A small RoPE model (D = 32, one head of H = 32) trained on lag at 32, run at 128 (s = 4).
    wai::set_threads(1);
    wai::RunConfig config;
    config.task = "lag", config.scheme = "rope", config.steps = 200, config.batch = 32;
    config.dim = 32, config.mlp_hidden = 64, config.eval_sequences = 64, config.test_lengths = {32, 128};
    const int64_t test_length = 128;
    const double s = static_cast<double>(test_length) / config.train_length;
    wai::RunResult trained;
    const std::unique_ptr<wai::Transformer> model = exercise::trained_model(config, trained);
    const int64_t head_dim = config.dim / config.heads;
    const double base = 10000.0;  // the scheme "rope"
    const wai::Task task = wai::make_task(config.task);
    const wai::Batch test = wai::test_batch(task, config.seed, test_length, config.eval_sequences);
    const wai::Batch few = wai::test_batch(task, config.seed, test_length, 4);
    auto logits = [&](const wai::ForwardOptions& options) {
        wai::NoGradScope no_grad;
        return model->forward(few.tokens, few.B, few.T, options).value();  // (4, 128, 16)
    };
    checker.note("lag, RoPE, trained at 32: accuracy at 128 " + exercise::number(trained.accuracy[1]) + " with no extension");
    struct Method {
        const char* name;
        wai::ExtensionSpec::Kind kind;
        Frequencies yours;
    };
    for (const Method& m : {Method{"position interpolation", wai::ExtensionSpec::Kind::pi, interpolated_frequencies(head_dim, base, s)},
                            Method{"NTK-aware scaling", wai::ExtensionSpec::Kind::ntk, ntk_frequencies(head_dim, base, s)}}) {
        // The trained model run with the library's extended RoPE, then with one of your frequencies.
        const auto library_rope = wai::extend_context(head_dim, base, wai::RopePairing::interleaved, m.kind, s, config.train_length);
        wai::ForwardOptions library;
        library.position = library_rope.get();
        const wai::Tensor library_logits = logits(library);
        const double library_accuracy = wai::evaluate(*model, test, config.train_length, library).all.value();
        const wai::RotaryPositions your_rope(head_dim, base, wai::RopePairing::interleaved, m.yours, 1.0f);
        wai::ForwardOptions your_options;
        your_options.position = &your_rope;
        const wai::Evaluation yours = wai::evaluate(*model, test, config.train_length, your_options);
        double largest = 1.0;
        for (int64_t j = 0; j < library_logits.numel(); ++j) largest = std::max(largest, std::abs(static_cast<double>(library_logits[j])));
        checker.note(std::string(m.name) + " at s = 4: accuracy at 128 " + exercise::number(library_accuracy) + " with the library's");
        // The frequencies agree to 1e-9 relative, so angles up to 127 radians to 1e-7: the float32
        // cos and sin differ by an ulp at most, the logits by float rounding, well inside 1e-4 of their size.
        checker.compare(std::string("logits (4, 128, 16) at 4x the training length with your ") + m.name +
                            ", against the library's extend_context",
                        logits(your_options), library_logits, 1e-4 * largest);
        // An ulp in an angle could turn one near-tied answer at most: one scored position is the tolerance.
        checker.compare_number(std::string("accuracy at 128 with your ") + m.name + ", against the library's",
                               yours.all.value(), library_accuracy, 1.0 / static_cast<double>(yours.all.scored));
    }
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"context_extension",
     "position interpolation and NTK-aware scaling of RoPE (LLM Mastery 23, \"Failure mode: context-length extrapolation\")",
                                      "start with interpolated_frequencies"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
