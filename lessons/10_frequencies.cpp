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

}  // namespace

int main(int argc, char** argv) {
    wai::prepare_process(argv);
    lesson::take_arguments(argc, argv);
    const int64_t H = 128;  // a Llama-sized head: 64 pairs
    const std::vector<double> bases = {10000.0, 500000.0};

    // Pair 0 turns one radian per position (theta_0 = 1), a full turn every 2 pi = 6.3 positions: it
    // tells neighbours apart. The last pair turns so slowly that a long context is a fraction of a turn.
    // A larger base stretches every wavelength but pair 0's.
    lesson::heading("Wavelength 2 pi / theta_i, in positions, head dimension 128");
    std::printf("   pair %18s %18s\n", ("base " + with_commas(bases[0], 0)).c_str(),
                ("base " + with_commas(bases[1], 0)).c_str());
    std::vector<std::vector<double>> table;
    for (double base : bases) table.push_back(wavelengths(H, base));
    for (int64_t pair : {0, 8, 16, 32, 48, 63})
        std::printf("  %5lld %18s %18s\n", static_cast<long long>(pair), with_commas(table[0][pair], 1).c_str(),
                    with_commas(table[1][pair], 1).c_str());

    for (size_t b = 0; b < bases.size(); ++b) {
        const std::vector<double>& wavelength = table[b];
        bool increasing = true;
        for (size_t i = 1; i < wavelength.size(); ++i) increasing &= wavelength[i] > wavelength[i - 1];
        const std::string name = "base " + with_commas(bases[b], 0);
        lesson::check(std::abs(wavelength[0] - 2.0 * std::numbers::pi) < 1e-12, name + ": pair 0's wavelength is 2 pi");
        lesson::check(increasing, name + ": each pair turns more slowly than the one before");
        const double last_expected = 2.0 * std::numbers::pi * std::pow(bases[b], static_cast<double>(H - 2) / H);
        lesson::check(std::abs(wavelength.back() / last_expected - 1.0) < 1e-12,
                      name + ": pair 63's wavelength is 2 pi base^(126/128), " + with_commas(last_expected, 1));
    }

    // A pair whose wavelength exceeds the context never completes a turn inside it: across the whole
    // context its angle only grows. Run a model on longer contexts than it trained on, and such pairs
    // reach angles it never saw.
    lesson::heading("Pairs that never finish one turn within a context");
    std::vector<int64_t> within_8k, within_128k;
    for (size_t b = 0; b < bases.size(); ++b) {
        within_8k.push_back(pairs_longer_than(table[b], 8192));
        within_128k.push_back(pairs_longer_than(table[b], 131072));
        std::printf("  base %9s: %2lld of 64 pairs never finish one turn within 8,192 positions, %2lld within 131,072\n",
                    with_commas(bases[b], 0).c_str(), static_cast<long long>(within_8k[b]),
                    static_cast<long long>(within_128k[b]));
    }
    lesson::check(within_8k[1] > within_8k[0] && within_128k[1] > within_128k[0],
                  "the larger base leaves more pairs short of a full turn at both lengths");
    lesson::check(within_128k[0] < within_8k[0] && within_128k[1] < within_8k[1],
                  "a 16x longer context leaves fewer such pairs at either base");

    // The chapter's own model is tiny by comparison: H = 64, trained at length 32, tested at 128. The
    // score of a query and a key d apart turns pair i by d * theta_i; training shows d up to 31, the
    // test up to 127. A pair that finishes a turn within 31 has shown the model every angle; a slower
    // one meets new angles at test time, from 31 theta_i up to 127 theta_i (one full turn at most).
    lesson::heading("The experiment's model: H = 64, distances up to 31 in training, up to 127 at length 128");
    std::vector<double> new_angle_totals;
    for (double base : {10000.0, 1000000.0}) {
        const std::vector<double> theta = wai::rope_frequencies(64, base);
        int64_t slow_pairs = 0;
        double new_angles = 0.0;  // radians, summed over pairs
        for (double t : theta) {
            const double full_turn = 2.0 * std::numbers::pi;
            slow_pairs += 31.0 * t < full_turn;
            new_angles += std::min(127.0 * t, full_turn) - std::min(31.0 * t, full_turn);
        }
        new_angle_totals.push_back(new_angles);
        std::printf("  base %9s: %2lld of 32 pairs short of a full turn in training; "
                    "new angles at 128: %.1f radians in all\n",
                    with_commas(base, 0).c_str(), static_cast<long long>(slow_pairs), new_angles);
    }
    // More pairs are slow at the larger base, but each moves less past what training showed. The
    // chapter measures the larger base doing better at 128 on seen; this is one difference between
    // the two bases, not a proof of why.
    lesson::check(new_angle_totals[1] < new_angle_totals[0],
                  "base 1,000,000 shows fewer radians of new angles at length 128 than base 10,000");
    return lesson::finish("10");
}
