// Lesson 09: why attention over more tokens is flatter, and what log-length scaling does about it.
// One matching key among 32 keys, then among 128 with the same scores: the match's weight and the
// row's entropy, from the engine's softmax; then the scores multiplied by log 128 / log 32
// (positional/length_scaling.hpp), the last column of the chapter's table. Mirrors where-am-i, the
// discussion of "seen" in "A test: two tasks, four times the length" (Chiang & Cholak 2022).
// Leaves out trained models: the scores here are set by hand, one match scored a and the rest 0.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "positional/length_scaling.hpp"

using wai::Shape;
using wai::Tensor;

namespace {

struct AttentionRow {
    double match_weight;  // the softmax weight on the one matching key
    double entropy;       // of the whole row, in nats: log(keys) when flat, 0 when all on one key
};

// One attention row over `keys` keys: the match scored `match_score`, every other key 0, then every
// score multiplied by `factor` (as ForwardOptions::score_scale does in nn/attention.hpp), and the
// engine's softmax.
AttentionRow attend(int64_t keys, float match_score, float factor) {
    Tensor scores(Shape{1, keys});  // (1, T): one query's scores
    scores[0] = match_score;
    const Tensor weights = wai::softmax(wai::scale(wai::Value(scores), factor)).value();  // (1, T)
    double entropy = 0.0;
    for (int64_t j = 0; j < keys; ++j)
        if (weights[j] > 0.0f) entropy -= weights[j] * std::log(static_cast<double>(weights[j]));
    return {weights[0], entropy};
}

// The setting of the whole lesson: attention over train_keys keys in training, test_keys at test time,
// and the factor log test_keys / log train_keys that log-length scaling multiplies every score by.
struct Lengths {
    int64_t train_keys, test_keys;
    float factor;
    std::string train, test;  // the two as text, for the claims
};

// What step 1's table found, for step 2: each positive match score a and the share of the gap its
// factor closed.
using GapsClosed = std::vector<std::pair<float, double>>;

// Step 1. One match among train_keys keys, then among test_keys with the same scores, then with the
// scores multiplied by the factor: the match's weight and the row's entropy, for a list of match scores.
GapsClosed compare_the_rows(const Lengths& lengths) {
    const int64_t train_keys = lengths.train_keys, test_keys = lengths.test_keys;
    const float factor = lengths.factor;
    const std::string &train = lengths.train, &test = lengths.test;
    // The match's weight is e^a / (e^a + (N - 1)): the match keeps its score, but every extra key adds
    // its own e^0 to the denominator. Four times the keys, and the same learned scores buy less.
    lesson::heading("One match scored a, every other key 0: the match's weight and the row's entropy");
    std::printf("  factor log %lld / log %lld = %.4f\n", static_cast<long long>(test_keys),
                static_cast<long long>(train_keys), factor);
    // "gap closed" is signed: how far the factor moves the weight from the unscaled one toward the
    // 32-key one, as a share of the whole way. Under 100% it falls short; over 100% it overshoots,
    // the row is then sharper than it was at 32 keys, and the column says "over". A score a < 0 (a key
    // scored below the rest) is multiplied by the factor too: it moves further below, the factor takes
    // weight off the key, and the share is negative ("away").
    std::printf("          weight on the match             share of the        entropy (nats)\n");
    std::printf("      a   %3lld keys  %3lld keys  %3lld x%.2f   gap closed      %3lld keys  %3lld keys  %3lld x%.2f\n",
                static_cast<long long>(train_keys), static_cast<long long>(test_keys), static_cast<long long>(test_keys),
                factor, static_cast<long long>(train_keys), static_cast<long long>(test_keys),
                static_cast<long long>(test_keys), factor);
    bool always_flatter = true, scaling_sharpens = true, scaling_closer = true, flat_stays_flat = true;
    bool any_negative = false, negative_moves_away = true;
    std::string sharpens_detail, closer_detail, away_detail;  // the rows a check failed at, with their weights
    char row_text[96];
    double largest_gap_left = 0.0;
    GapsClosed closed_at;  // (a, share of the gap closed), for a > 0
    for (float a : {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 8.0f}) {
        const AttentionRow short_row = attend(train_keys, a, 1.0f), long_row = attend(test_keys, a, 1.0f);
        const AttentionRow scaled_row = attend(test_keys, a, factor);
        const double gap = short_row.match_weight - long_row.match_weight;
        const double gap_left = std::abs(short_row.match_weight - scaled_row.match_weight);
        // A score so large that the match's weight rounds to exactly 1 in float32 even with the most
        // keys leaves nothing to compare: the row is shown, marked, and left out of the claims.
        if (long_row.match_weight == 1.0f) {
            std::printf("  %5.1f    %.4f    %.4f     %.4f      (float32 rounds every weight to 1: not compared)\n", a,
                        short_row.match_weight, long_row.match_weight, scaled_row.match_weight);
            continue;
        }
        const double closed = (scaled_row.match_weight - long_row.match_weight) / gap;  // signed; 1 = exactly
        std::printf("  %5.1f    %.4f    %.4f     %.4f      %6.1f%% %-4s     %.3f      %.3f      %.3f\n", a,
                    short_row.match_weight, long_row.match_weight, scaled_row.match_weight, 100.0 * closed,
                    closed > 1.0 ? "over" : closed < 0.0 ? "away" : "", short_row.entropy, long_row.entropy, scaled_row.entropy);
        always_flatter &= long_row.match_weight < short_row.match_weight && long_row.entropy > short_row.entropy;
        if (a == 0.0f) {  // no match stands out: a flat row stays flat whatever the factor
            flat_stays_flat = std::abs(scaled_row.match_weight - long_row.match_weight) < 1e-7;
            continue;
        }
        if (a < 0.0f) {  // a key scored below the rest: the factor lowers its weight further
            any_negative = true;
            if (!(scaled_row.match_weight < long_row.match_weight && long_row.match_weight < short_row.match_weight)) {
                negative_moves_away = false;
                std::snprintf(row_text, sizeof row_text, " a = %g: %.4f scaled, %.4f unscaled, %.4f at %lld;", a,
                              scaled_row.match_weight, long_row.match_weight, short_row.match_weight,
                              static_cast<long long>(train_keys));
                away_detail += row_text;
            }
            continue;
        }
        closed_at.emplace_back(a, closed);
        if (!(scaled_row.match_weight > long_row.match_weight)) {
            scaling_sharpens = false;
            std::snprintf(row_text, sizeof row_text, " a = %g: %.4f scaled, %.4f unscaled;", a, scaled_row.match_weight,
                          long_row.match_weight);
            sharpens_detail += row_text;
        }
        if (!(gap_left < gap)) {
            scaling_closer = false;
            std::snprintf(row_text, sizeof row_text, " a = %g: %.4f left of a %.4f gap;", a, gap_left, gap);
            closer_detail += row_text;
        }
        largest_gap_left = std::max(largest_gap_left, gap_left);
    }
    lesson::check(always_flatter,
                  "at every a, " + test + " keys give the match less weight and the row more entropy than " + train);
    lesson::check(flat_stays_flat,
                  "a = 0: all scores equal, and scaling them changes nothing (weight 1/" + test + " either way)");
    lesson::check(scaling_sharpens, "at every a > 0, the factor moves weight back onto the match at " + test + " keys",
                  sharpens_detail);
    lesson::check(scaling_closer,
                  "at every a > 0, the scaled weight is nearer the " + train + "-key weight than the unscaled one",
                  closer_detail);
    if (any_negative)
        lesson::check(negative_moves_away,
                      "at every a < 0, the factor takes weight off the key at " + test + " keys, further from its " + train +
                          "-key weight",
                      away_detail);
    std::printf("  largest distance left between the scaled %lld-key weight and the %lld-key weight: %.3f\n",
                static_cast<long long>(test_keys), static_cast<long long>(train_keys), largest_gap_left);
    return closed_at;
}

// Step 2. "Roughly", made exact. The scaled weight equals the 32-key weight when e^(ca) / 127 = e^a / 31,
// that is at a* = log(127/31) / (c - 1) for c = log 128 / log 32. One score, not all: below a* the
// factor restores part of the weight, above a* it overshoots and the row is sharper than at 32.
void find_where_the_factor_restores_the_weight(const Lengths& lengths, const GapsClosed& closed_at) {
    const int64_t train_keys = lengths.train_keys, test_keys = lengths.test_keys;
    const float factor = lengths.factor;
    lesson::heading("Where the factor restores the weight exactly");
    const double exact_score =
        std::log(static_cast<double>(test_keys - 1) / static_cast<double>(train_keys - 1)) / (factor - 1.0);
    const AttentionRow at_short = attend(train_keys, static_cast<float>(exact_score), 1.0f);
    const AttentionRow at_scaled = attend(test_keys, static_cast<float>(exact_score), factor);
    std::printf("  a* = log(%lld/%lld) / (%.4f - 1) = %.4f: weight %.5f with %lld keys, %.5f with %lld keys scaled\n",
                static_cast<long long>(test_keys - 1), static_cast<long long>(train_keys - 1), factor, exact_score,
                at_short.match_weight, static_cast<long long>(train_keys), at_scaled.match_weight,
                static_cast<long long>(test_keys));
    lesson::check(std::abs(at_short.match_weight - at_scaled.match_weight) < 1e-5, "at a* the two weights agree to 1e-5");
    bool over_exactly_above = true;
    for (const auto& [a, closed] : closed_at) over_exactly_above &= (closed > 1.0) == (a > exact_score);
    lesson::check(over_exactly_above, "in the table, \"over\" (more than 100% of the gap closed) is exactly the rows with a > a*");
    const float below = static_cast<float>(exact_score) - 1.0f, above = static_cast<float>(exact_score) + 1.0f;
    lesson::check(attend(test_keys, below, factor).match_weight < attend(train_keys, below, 1.0f).match_weight &&
                      attend(test_keys, above, factor).match_weight > attend(train_keys, above, 1.0f).match_weight,
                  "one below a* the scaled weight falls short; one above, it overshoots");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    constexpr int64_t train_keys = 32, test_keys = 128;
    static_assert(train_keys >= 2 && test_keys > train_keys,
                  "the lesson scales from train_keys up to more keys: train_keys at least 2 (log 1 is 0), test_keys above it "
                  "(at equal lengths the factor is 1 and there is no weight to restore)");
    const Lengths lengths{train_keys, test_keys, wai::log_length_scale(test_keys, train_keys), std::to_string(train_keys),
                          std::to_string(test_keys)};
    const GapsClosed closed_at = compare_the_rows(lengths);
    find_where_the_factor_restores_the_weight(lengths, closed_at);

    // What it means for the experiment: the factor changes nothing learned and costs nothing, and it
    // helps where a model's trouble at 128 is dilution, as on seen with no positions (back to 96% in
    // the chapter). It cannot make up a score that was never learned, it overshoots where scores are
    // already sharp (a > a*), and with ALiBi it hurts for another reason: it sharpens the content
    // scores but not the fixed distance penalty added after them.
    return lesson::finish("09");
}
