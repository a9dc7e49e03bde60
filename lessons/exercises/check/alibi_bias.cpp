// The checker of the ALiBi exercise: your alibi_slopes against the library's (positional/alibi.hpp)
// for 1, 4, 8 and 12 heads, then your alibi_bias, given the library's slopes, against the library's
// for several head counts and lengths, and last the two together against the model's own scheme,
// AlibiPositions' score_bias. Known slips it names: the slopes counted from k = 0 (slope 1 for the
// first head), 2^(-k/NH) (the 8 forgotten), 2^(-k) (NH forgotten), the slopes reversed or all alike, 8k/NH divided in
// integers (right for 1, 4 and 8 heads, not for 12); in the penalty, the sign
// or (n - m) for (m - n) (a reward for distance), the penalty above the diagonal instead of below,
// the distance off by one, one slope for every head, the heads' slopes in reverse.
// Above the diagonal (keys after the query) only a note, not a wrong answer: the model never reads
// those entries. Its attention adds the bias to the scores and then takes the causal softmax, which
// reads only keys n <= m (autograd/softmax.cpp; the fast kernel does the same); the checker shows it,
// comparing the causal softmax of your whole bias with the library's. The library writes 0 there so
// that the bias read alone is the penalty and nothing else (lesson 04 prints it that way). Trained
// with such a bias (train/alibi_bias.cpp), the model gives the library's line to the last digit.
// Leaves out learned slopes and the non-causal (symmetric) variant.
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/exercises/alibi_bias.hpp"
#include "lessons/exercises/exercise.hpp"
#include "positional/alibi.hpp"

using wai::Shape;
using wai::Tensor;

namespace {

// Slopes lie in (0, 1]. They are compared as float32 numbers: two right ways of computing 2^(-8k/NH)
// in double differ by an ulp or so, which the rounding to float can turn into one float ulp, 6e-8.
constexpr double slope_tolerance = 1e-6;
// The penalty reaches slope * (T - 1), at most 16 here; a learner's float arithmetic is off by a few
// roundings of that, 1e-6 at worst. Every slip is off by at least the smallest slope, 1/256.
constexpr double bias_tolerance = 1e-5;
// Attention weights lie in [0, 1]; the same visible scores give the same weights to a rounding.
constexpr double weight_tolerance = 1e-6;

Tensor as_tensor(const std::vector<double>& numbers) {  // (N)
    Tensor t(Shape{static_cast<int64_t>(numbers.size())});
    for (size_t i = 0; i < numbers.size(); ++i) t[static_cast<int64_t>(i)] = static_cast<float>(numbers[i]);
    return t;
}

std::vector<double> reversed(std::vector<double> numbers) { return {numbers.rbegin(), numbers.rend()}; }

// (NH, T, T) -> (NH, T, T): the entries the causal mask lets through (n <= m), 0 above the diagonal.
Tensor on_and_below_diagonal(const Tensor& bias) {
    Tensor kept = bias;
    const int64_t T = bias.size(1);
    for (int64_t h = 0; h < bias.size(0); ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = m + 1; n < T; ++n) kept(h, m, n) = 0.0f;
    return kept;
}

void check_slopes(exercise::Checker& checker) {
    for (int64_t heads : {1, 4, 8, 12}) {
        const std::vector<double> right = wai::alibi_slopes(heads);
        std::vector<double> from_zero{1.0};  // k = 0..NH-1: 2^0 = 1 first, then the right ones but the last
        from_zero.insert(from_zero.end(), right.begin(), right.end() - 1);
        const std::vector<double> without_eight = wai::alibi_slopes(8 * heads);  // 2^(-8k/(8 NH)) = 2^(-k/NH)
        // 8k/NH in integers, the fraction dropped: exact for 1, 4 and 8 heads, not for 12. Divided as
        // (8k)/NH, or as (8/NH) k, which is 0 for more than 8 heads.
        std::vector<double> integer_quotient, integer_ratio;
        for (int64_t k = 1; k <= heads; ++k) {
            integer_quotient.push_back(std::pow(2.0, -static_cast<double>(8 * k / heads)));
            integer_ratio.push_back(std::pow(2.0, -static_cast<double>(8 / heads * k)));
        }
        std::vector<double> without_heads;  // 2^(-k): NH left out of the exponent (right only for 8 heads)
        for (int64_t k = 1; k <= heads; ++k) without_heads.push_back(std::pow(2.0, -static_cast<double>(k)));
        // At 1 head, 2^(-k/NH) and 2^(-k) are the same numbers: the hint names both.
        const std::string eight_hint =
            heads == 1 ? "the 8 is missing, or NH is (at 1 head the two slips give the same numbers): the exponent is 8k/NH, "
                         "2^(-8k/NH), so that 8 heads go from 1/2 to 1/256"
                       : "the 8 is missing: 2^(-8k/NH), so that 8 heads go from 1/2 to 1/256";
        const std::string integer_hint =
            "8k/NH is an integer division here: with k and NH both integers C++ drops the fraction (8 / 12 is 0, as "
            "8 // 12 is in Python), which is exact for 1, 4 and 8 heads but not for 12; write 8.0 * k / NH";
        checker.compare(
            "alibi_slopes(" + std::to_string(heads) + "), against the library's", as_tensor(alibi_slopes(heads)),
            as_tensor(right), slope_tolerance,
            {{"the first head's slope is 1: k counts from 1 to NH, so the first is 2^(-8/NH) (1/2 for 8 heads)",
              as_tensor(from_zero)},
             {eight_hint, as_tensor({without_eight.begin(), without_eight.begin() + heads})},
             {"NH is missing from the exponent: yours are 2^(-k) for every number of heads, right only for 8; "
              "2^(-8k/NH) spreads the same range, 1/2^(8/NH) down to 1/256, over any NH",
              as_tensor(without_heads)},
             {"the slopes are in reverse: head k = 1 (index 0) has the steepest, 2^(-8/NH)", as_tensor(reversed(right))},
             {"every head has the first slope: head k's is 2^(-8/NH) to the power k",
              as_tensor(std::vector<double>(heads, right[0]))},
             {integer_hint, as_tensor(integer_quotient)},
             {integer_hint, as_tensor(integer_ratio)}});
    }
}

// What each known slip gives, for the library's slopes: the entries on and below the diagonal only.
std::vector<exercise::Slip> bias_slips(const std::vector<double>& slopes, int64_t T) {
    const Tensor right = wai::alibi_bias(slopes, T);
    Tensor rewarded = right, one_further = right;
    for (int64_t h = 0; h < right.size(0); ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = 0; n <= m; ++n) {
                rewarded(h, m, n) = -right(h, m, n);
                one_further(h, m, n) = right(h, m, n) - static_cast<float>(slopes[h]);
            }
    return {{"the sign: the key n <= m gets -slope * (m - n), a penalty; yours rewards distance (a + sign, or "
             "(n - m) in place of (m - n))",
             rewarded},
            {"your penalty is 0 wherever the mask lets a query see: it is above the diagonal (the transpose: query m "
             "is the row, key n <= m the column) or not written",
             Tensor(right.shape())},
            {"the distance is off by one: a key's distance to itself is 0, so the diagonal is 0", one_further},
            {"every head has the first head's slope: head h uses slopes[h]",
             wai::alibi_bias(std::vector<double>(slopes.size(), slopes[0]), T)},
            {"the heads' slopes are in reverse: head h uses slopes[h]", wai::alibi_bias(reversed(slopes), T)}};
}

// A note (not a verdict) on what your bias holds above the diagonal, with the proof that it is harmless:
// the causal softmax of your whole bias, head by head, gives the library's weights. True if it noted.
bool note_above_diagonal(exercise::Checker& checker, const Tensor& yours, const std::vector<double>& slopes) {
    const int64_t heads = yours.size(0), T = yours.size(1);
    int64_t count = 0, first = -1;
    bool formula = true, symmetric = true;
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = m + 1; n < T; ++n) {
                const float got = yours(h, m, n);
                if (got == 0.0f) continue;
                if (count++ == 0) first = (h * T + m) * T + n;
                formula = formula && exercise::close(got, -slopes[h] * double(m - n), bias_tolerance);
                symmetric = symmetric && exercise::close(got, -slopes[h] * double(n - m), bias_tolerance);
            }
    if (count == 0) return false;
    const std::string what = formula ? "-slope * (m - n) written for every key, a reward for keys after the query"
                             : symmetric ? "-slope * |m - n|, the symmetric penalty of non-causal ALiBi"
                                         : "numbers the library leaves 0";
    checker.note("note: above the diagonal (keys after the query) " + std::to_string(count) + " entries are not 0, " +
                 "first " + exercise::index_in(yours.shape(), first) + " = " + exercise::number(yours[first]) + ": " +
                 what + ". The causal mask hides them, so the model never uses them; the library writes 0 there.");
    const Tensor causal_yours = wai::softmax(wai::Value(yours), /*causal=*/true).value();
    const Tensor causal_library = wai::softmax(wai::Value(wai::alibi_bias(slopes, T)), /*causal=*/true).value();
    checker.compare("under the causal mask your whole bias gives the library's attention weights", causal_yours,
                    causal_library, weight_tolerance);
    return true;
}

void check(exercise::Checker& checker) {
    checker.next_hint = "start with alibi_slopes: index k - 1 holds 2^(-8k/NH), for k = 1..NH";
    check_slopes(checker);
    if (checker.failed()) return;

    checker.next_hint =
        "alibi_slopes is right; now alibi_bias: an (NH, T, T) tensor, -slopes[h] * (m - n) for key n <= m";
    struct Size {
        int64_t heads, T;
    };
    bool noted = false;  // the note on entries above the diagonal, once
    for (const Size size : {Size{4, 9}, Size{1, 6}, Size{8, 33}, Size{12, 5}}) {
        const std::vector<double> slopes = wai::alibi_slopes(size.heads);
        const Tensor yours = alibi_bias(slopes, size.T);
        const std::string call = "alibi_bias(the library's " + std::to_string(size.heads) + " slopes, T = " +
                                 std::to_string(size.T) + ")";
        const Tensor expected = wai::alibi_bias(slopes, size.T);
        if (!yours.defined() || yours.shape() != expected.shape()) {
            checker.compare(call, yours, expected, bias_tolerance);
            return;
        }
        std::vector<exercise::Slip> slips = bias_slips(slopes, size.T);
        if (!checker.compare(call + ", on and below the diagonal (the keys a query sees), against the library's",
                             on_and_below_diagonal(yours), expected, bias_tolerance, slips))
            return;
        if (!noted) noted = note_above_diagonal(checker, yours, slopes);
    }

    // Both together, as the model asks for them: the scheme "alibi" for 8 heads.
    constexpr int64_t heads = 8, T = 32;
    const Tensor model = wai::AlibiPositions().score_bias(heads, T).value();  // (NH, T, T)
    checker.compare("alibi_bias(alibi_slopes(8), 32) on and below the diagonal, against the model's score_bias for the "
                    "scheme alibi with 8 heads",
                    on_and_below_diagonal(alibi_bias(alibi_slopes(heads), T)), model, bias_tolerance);
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"alibi_bias", "ALiBi's slopes and distance penalty (Where Am I?, \"Penalizing distance: ALiBi\")",
                                      "start with alibi_slopes"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
