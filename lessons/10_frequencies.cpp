// Lesson 10: RoPE's frequencies and how far each pair of dimensions "sees". Pair i turns by
// theta_i = base^(-2i/H) per position, so one full turn takes 2 pi / theta_i positions, its wavelength.
// The chapter prints the code for a table at head dimension 128, bases 10,000 and 500,000 (Llama 3),
// but not its output; here it is, from positional/rope.hpp's rope_frequencies.
// Mirrors where-am-i, "The frequencies, and longer contexts". Leaves out the context-extension methods
// themselves (position interpolation, YaRN, ...): this lesson only measures what they change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"
#include "positional/rope.hpp"

namespace {

// 2 pi / theta_i for every pair i of a head of dimension H: (H/2) positions per full turn.
std::vector<double> wavelengths(int64_t H, double base) {
    std::vector<double> result;
    for (double theta : wai::rope_frequencies(H, base)) result.push_back(2.0 * std::numbers::pi / theta);
    return result;
}

int64_t pairs_longer_than(const std::vector<double>& wavelength, double positions) {
    int64_t count = 0;
    for (double w : wavelength) count += w > positions;
    return count;
}

// 131072 -> "131,072", as the chapter writes its numbers.
std::string with_commas(double value, int decimals) {
    char digits[64];
    std::snprintf(digits, sizeof digits, "%.*f", decimals, value);
    const std::string text = digits;
    const size_t whole_digits = std::min(text.find('.'), text.size());
    std::string result;
    for (size_t j = 0; j < text.size(); ++j) {
        if (j > 0 && j < whole_digits && (whole_digits - j) % 3 == 0) result += ',';
        result += text[j];
    }
    return result;
}

const int64_t H = 128;  // a Llama-sized head: 64 pairs
const int64_t pairs = H / 2;
const std::vector<double> bases = {10000.0, 500000.0};  // the original, and Llama 3's
const double short_context = 8192, long_context = 131072;  // the chapter's two context lengths

// Step 1. Pair 0 turns one radian per position (theta_0 = 1), a full turn every 2 pi = 6.3 positions:
// it tells neighbours apart. The last pair turns so slowly that a long context is a fraction of a
// turn. A larger base stretches every wavelength but pair 0's. Returns each base's wavelengths.
std::vector<std::vector<double>> show_the_wavelengths() {
    lesson::heading("Wavelength 2 pi / theta_i, in positions, head dimension " + std::to_string(H));
    std::printf("   pair");
    for (double base : bases) std::printf(" %18s", ("base " + with_commas(base, 0)).c_str());
    std::printf("\n");
    std::vector<std::vector<double>> table;
    for (double base : bases) table.push_back(wavelengths(H, base));
    // The chapter's rows 0, 8, 16, 32, 48, 63 of 64 pairs: the same fractions of the pairs for any H.
    std::vector<int64_t> shown_pairs;
    for (int64_t pair : {int64_t{0}, pairs / 8, pairs / 4, pairs / 2, 3 * pairs / 4, pairs - 1})
        if (shown_pairs.empty() || pair > shown_pairs.back()) shown_pairs.push_back(pair);
    for (int64_t pair : shown_pairs) {
        std::printf("  %5lld", static_cast<long long>(pair));
        for (const std::vector<double>& wavelength : table) std::printf(" %18s", with_commas(wavelength[pair], 1).c_str());
        std::printf("\n");
    }

    for (size_t b = 0; b < bases.size(); ++b) {
        const std::vector<double>& wavelength = table[b];
        bool increasing = true;
        for (size_t i = 1; i < wavelength.size(); ++i) increasing &= wavelength[i] > wavelength[i - 1];
        const std::string name = "base " + with_commas(bases[b], 0);
        lesson::check(std::abs(wavelength[0] - 2.0 * std::numbers::pi) < 1e-12, name + ": pair 0's wavelength is 2 pi");
        lesson::check(increasing, name + ": each pair turns more slowly than the one before");
        const double last_expected = 2.0 * std::numbers::pi * std::pow(bases[b], static_cast<double>(H - 2) / H);
        lesson::check(std::abs(wavelength.back() / last_expected - 1.0) < 1e-12,
                      name + ": pair " + std::to_string(pairs - 1) + "'s wavelength is 2 pi base^(" +
                          std::to_string(H - 2) + "/" + std::to_string(H) + "), " + with_commas(last_expected, 1));
    }
    return table;
}

// Step 2. A pair whose wavelength exceeds the context never completes a turn inside it: across the
// whole context its angle only grows. Run a model on longer contexts than it trained on, and such
// pairs reach angles it never saw.
void count_pairs_short_of_a_turn(const std::vector<std::vector<double>>& table) {
    lesson::heading("Pairs that never finish one turn within a context");
    std::vector<int64_t> within_short, within_long;
    for (size_t b = 0; b < bases.size(); ++b) {
        within_short.push_back(pairs_longer_than(table[b], short_context));
        within_long.push_back(pairs_longer_than(table[b], long_context));
        std::printf("  base %9s: %2lld of %lld pairs never finish one turn within %s positions, %2lld within %s\n",
                    with_commas(bases[b], 0).c_str(), static_cast<long long>(within_short[b]),
                    static_cast<long long>(pairs), with_commas(short_context, 0).c_str(),
                    static_cast<long long>(within_long[b]), with_commas(long_context, 0).c_str());
    }
    // Each claim compares neighbours in the lists: every larger base (bases in increasing order), and
    // the longer context against the shorter, at every base. A claim that fails names its first
    // exception (a tie is one: "more" means more).
    const auto counts = [&](size_t b) {
        return "base " + with_commas(bases[b], 0) + " leaves " + std::to_string(within_short[b]) + " within " +
               with_commas(short_context, 0) + " and " + std::to_string(within_long[b]) + " within " +
               with_commas(long_context, 0);
    };
    std::string larger_base_exception, longer_context_exception;  // empty while the claim holds
    for (size_t b = 1; b < bases.size() && larger_base_exception.empty(); ++b)
        if (within_short[b] <= within_short[b - 1] || within_long[b] <= within_long[b - 1])
            larger_base_exception = counts(b) + ", " + counts(b - 1);
    for (size_t b = 0; b < bases.size() && longer_context_exception.empty(); ++b)
        if (within_long[b] >= within_short[b]) longer_context_exception = counts(b);
    lesson::check(larger_base_exception.empty(), "each larger base leaves more pairs short of a full turn at both lengths",
                  larger_base_exception);
    lesson::check(longer_context_exception.empty(),
                  "a " + with_commas(long_context / short_context, 0) + "x longer context leaves fewer such pairs at every base",
                  longer_context_exception);
}

// Step 3. The chapter's own model is tiny by comparison: H = 64, trained at length 32, tested at 128.
// The score of a query and a key d apart turns pair i by d * theta_i; training shows d up to 31, the
// test up to 127. A pair that finishes a turn within 31 has shown the model every angle; a slower
// one meets new angles at test time, from 31 theta_i up to 127 theta_i (one full turn at most).
void compare_bases_for_the_experiments_model() {
    const int64_t model_H = 64, train_length = 32, test_length = 128;
    const std::vector<double> model_bases = {10000.0, 1000000.0};  // the chapter's rope and rope:1000000
    const double seen_in_training = train_length - 1, seen_at_test = test_length - 1;  // the longest distances
    lesson::heading("The experiment's model: H = " + std::to_string(model_H) + ", distances up to " +
                    with_commas(seen_in_training, 0) + " in training, up to " + with_commas(seen_at_test, 0) +
                    " at length " + std::to_string(test_length));
    std::vector<double> new_angle_totals;
    for (double base : model_bases) {
        const std::vector<double> theta = wai::rope_frequencies(model_H, base);
        int64_t slow_pairs = 0;
        double new_angles = 0.0;  // radians, summed over pairs
        for (double t : theta) {
            const double full_turn = 2.0 * std::numbers::pi;
            slow_pairs += seen_in_training * t < full_turn;
            new_angles += std::min(seen_at_test * t, full_turn) - std::min(seen_in_training * t, full_turn);
        }
        new_angle_totals.push_back(new_angles);
        std::printf("  base %9s: %2lld of %lld pairs short of a full turn in training; "
                    "new angles at %lld: %.1f radians in all\n",
                    with_commas(base, 0).c_str(), static_cast<long long>(slow_pairs),
                    static_cast<long long>(model_H / 2), static_cast<long long>(test_length), new_angles);
    }
    // More pairs are slow at the larger base, but each moves less past what training showed. The
    // chapter measures the larger base doing better at 128 on seen; this is one difference between
    // the two bases, not a proof of why.
    lesson::check(new_angle_totals[1] < new_angle_totals[0],
                  "base " + with_commas(model_bases[1], 0) + " shows fewer radians of new angles at length " +
                      std::to_string(test_length) + " than base " + with_commas(model_bases[0], 0));
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    const std::vector<std::vector<double>> table = show_the_wavelengths();
    count_pairs_short_of_a_turn(table);
    compare_bases_for_the_experiments_model();
    return lesson::finish("10");
}
