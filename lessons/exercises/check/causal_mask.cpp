// The checker of the causal mask exercise: your causal_mask(T) against the library's convention, the
// causal softmax of wai::softmax(x, /*causal=*/true) (autograd/softmax.cpp: query m sees keys 0..m,
// and a hidden key's weight is exactly 0), then lesson 01's claims asked of an attention that adds
// your mask to its scores, softmax(q k^T / sqrt(H) + mask) v, over five random tokens:
//   - with the mask, a token's output depends only on tokens 0..t: changing a later one leaves it be;
//   - with the mask, shuffling the tokens before the last leaves the last token's output unchanged;
//   - with no mask at all attention is permutation-equivariant, and the mask breaks that.
// Known slips it names: no mask at all, the diagonal hidden too (a token cannot see itself), the
// transpose (the keys after the query seen instead of those before), the mask the wrong way round,
// a 0/1 mask of np.tri's kind, NaN from 0 times infinity, +infinity for -infinity.
// Leaves out masks for keys longer than the queries (a cache): the model's attention has T = Tk.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/exercises/causal_mask.hpp"
#include "lessons/exercises/exercise.hpp"
#include "nn/attention.hpp"
#include "tensor/elementwise.hpp"

using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

constexpr int64_t T = 5, H = 8;  // the chapter's five tokens of width 8
// A mask entry at or below this hides its key: exp(-1e4 + a score of order 1) is exactly 0 in float.
constexpr float hidden_at_most = -1e4f;
// Attention weights lie in [0, 1] and outputs are sums of five of them times numbers of order 1.
// Adding a mask of 0 and -infinity gives the same exponentials as the library's causal softmax, but
// the row sums may add in another order: a float32 rounding or two, far below these tolerances.
constexpr double weight_tolerance = 1e-6, output_tolerance = 1e-5;
// "Changed" for the claims: far above rounding, far below what a seen token changes (of order 0.1).
constexpr double changed_by = 1e-3;

struct Tokens {
    Tensor query, key, value;  // (T, H) each: row t is token t's q, k and v
};

// softmax(q k^T / sqrt(H) + mask) v with your mask, or with no mask when `mask` is undefined.
struct Attended {
    Tensor weights, output;  // (T, T), (T, H)
};
Attended attend_with(const Tokens& tokens, const Tensor& mask) {
    Value scores = wai::scale(wai::matmul(Value(tokens.query), Value(tokens.key), false, /*trans_b=*/true),
                              1.0f / std::sqrt(float(H)));  // (T, T)
    if (mask.defined()) scores = wai::add(scores, Value(mask));
    const Value weights = wai::softmax(scores, /*causal=*/false);
    return {weights.value(), wai::matmul(weights, Value(tokens.value)).value()};
}

// The library's: nn/attention.hpp's formula, whose softmax applies the causal mask itself.
Attended library_attend(const Tokens& tokens) {
    Attended result;
    result.output = wai::attention(Value(tokens.query), Value(tokens.key), Value(tokens.value), Value(),
                                   1.0f / std::sqrt(float(H)), &result.weights)
                        .value();
    return result;
}

// x (T, C) -> (T, C): row i is row order[i] of x (gathered as an embedding looks up its rows).
Tensor rows_reordered(const Tensor& x, const std::vector<int>& order) {
    return wai::embedding(Value(x), order, Shape{T}).value();
}
// The tokens in another order: row i of each of q, k, v is token order[i]'s.
Tokens reordered(const Tokens& tokens, const std::vector<int>& order) {
    return {rows_reordered(tokens.query, order), rows_reordered(tokens.key, order), rows_reordered(tokens.value, order)};
}

// The library's convention as a pattern: 1 where the causal softmax gives a key weight, 0 where it
// gives exactly 0 (equal scores, so every seen key gets a positive weight).
Tensor library_seen(int64_t length) {
    const Tensor weights = wai::softmax(Value(Tensor(Shape{length, length})), /*causal=*/true).value();
    Tensor seen(weights.shape());
    for (int64_t i = 0; i < seen.numel(); ++i) seen[i] = weights[i] > 0.0f ? 1.0f : 0.0f;
    return seen;
}

// Your mask as the same pattern: 1 for an entry of 0 (seen), 0 for a hidden one.
Tensor seen_by(const Tensor& mask) {
    Tensor seen(mask.shape());
    for (int64_t i = 0; i < seen.numel(); ++i) seen[i] = mask[i] == 0.0f ? 1.0f : 0.0f;
    return seen;
}

// What each known slip's pattern would be, for a (length, length) mask.
std::vector<exercise::Slip> pattern_slips(int64_t length) {
    const Tensor right = library_seen(length);
    Tensor everything(right.shape()), transpose(right.shape()), no_diagonal = right, inverted(right.shape());
    for (int64_t m = 0; m < length; ++m)
        for (int64_t n = 0; n < length; ++n) {
            everything(m, n) = 1.0f;
            transpose(m, n) = right(n, m);
            inverted(m, n) = 1.0f - right(m, n);
        }
    for (int64_t m = 0; m < length; ++m) no_diagonal(m, m) = 0.0f;
    // At length 1 the only entry is the diagonal: a hidden diagonal and a mask the wrong way round
    // look the same there, and the hint names both.
    const std::string diagonal_hint =
        length == 1 ? "the one token does not see itself: a token must see itself, n <= m; either the diagonal is hidden "
                      "too (n < m, off by one) or the mask is the wrong way round (the larger sizes tell which)"
                    : "the diagonal is hidden too (off by one): a token must see itself, n <= m, not n < m";
    return {{"nothing is hidden: a missing causal mask, so every token sees the tokens after it", everything},
            {diagonal_hint, no_diagonal},
            {"the transpose: query m sees the keys after it (n >= m); it must see those before it, n <= m", transpose},
            {"the mask is the wrong way round: -infinity where a key is seen, 0 where it is hidden", inverted}};
}

// Every entry must be 0 (seen) or hidden (-infinity, or -1e4 and below). Names the first that is neither.
bool entries_seen_or_hidden(exercise::Checker& checker, const std::string& what, const Tensor& mask) {
    bool zeros_and_ones = true;
    int64_t first = -1;
    for (int64_t i = 0; i < mask.numel(); ++i) {
        zeros_and_ones = zeros_and_ones && (mask[i] == 0.0f || mask[i] == 1.0f);
        if (first < 0 && !(mask[i] == 0.0f || mask[i] <= hidden_at_most)) first = i;
    }
    if (first < 0) return checker.ok(what);
    return checker.wrong(what,
                         "the entry at " + exercise::index_in(mask.shape(), first) + " is " + exercise::number(mask[first]) +
                             ": an entry is 0 (the key is seen) or -infinity (hidden; -1e4 or below hides it too)",
                         zeros_and_ones ? "a mask of 1 and 0 says which keys are seen, as np.tri does, but added to the "
                                          "scores it hides nothing: write 0 where a key is seen, -infinity where it is not"
                         : std::isnan(mask[first])
                             ? "NaN is what 0 times infinity gives (as in (n > m) * -infinity, where n <= m): choose "
                               "between 0 and -infinity with an if, or a ?:, instead of multiplying"
                         : std::isinf(mask[first]) && mask[first] > 0
                             ? "+infinity: a hidden key gets -infinity, so that exp of its score is 0"
                             : "");
}

// Checks causal_mask(length); false when its shape or its numbers leave it unfit to add to scores
// (a wrong pattern is reported, but the attention below can still show what that pattern does).
bool mask_usable(exercise::Checker& checker, int64_t length) {
    const std::string size = "(" + std::to_string(length) + ", " + std::to_string(length) + ")";
    const Tensor mask = causal_mask(length);
    if (!mask.defined() || mask.shape() != Shape{length, length})
        return checker.compare("causal_mask(" + std::to_string(length) + ")", mask, library_seen(length), 0.0);
    if (!entries_seen_or_hidden(checker, "every entry of your " + size + " mask is 0 or hidden", mask)) return false;
    checker.compare("which keys each query sees in your " + size + " mask (1 seen, 0 hidden), against the "
                    "library's causal softmax",
                    seen_by(mask), library_seen(length), 0.0, pattern_slips(length));
    return true;
}

double largest_difference(const Tensor& a, const Tensor& b, int64_t first_row, int64_t rows) {
    double largest = 0.0;
    for (int64_t i = first_row * H; i < (first_row + rows) * H; ++i)
        largest = std::max(largest, std::isnan(a[i] - b[i]) ? INFINITY : double(std::abs(a[i] - b[i])));
    return largest;
}

void check(exercise::Checker& checker) {
    if (!mask_usable(checker, T)) return;
    for (int64_t length : {int64_t{1}, int64_t{12}}) mask_usable(checker, length);

    // The attention of lesson 01 with your mask in it.
    wai::Generator generator(1);
    const Tokens tokens{Tensor::normal(Shape{T, H}, 0.0f, 1.0f, generator), Tensor::normal(Shape{T, H}, 0.0f, 1.0f, generator),
                        Tensor::normal(Shape{T, H}, 0.0f, 1.0f, generator)};
    const Tensor mask = causal_mask(T);
    const Attended yours = attend_with(tokens, mask), library = library_attend(tokens);
    if (!wai::all_finite(yours.output)) {
        checker.wrong("every output of the attention with your mask is a number", "some are not (NaN)",
                      "a query that sees no key at all gets the softmax of a row of -infinity, 0/0: every token "
                      "must see at least itself");
        return;
    }
    checker.compare("attention weights softmax(q k^T / sqrt(H) + your mask), against the library's causal softmax",
                    yours.weights, library.weights, weight_tolerance);
    bool hidden_exactly_zero = true;
    for (int64_t i = 0; i < library.weights.numel(); ++i)
        hidden_exactly_zero = hidden_exactly_zero && (library.weights[i] != 0.0f || yours.weights[i] == 0.0f);
    if (hidden_exactly_zero) checker.ok("every hidden key gets a weight of exactly 0, as in the library's causal softmax");
    else checker.wrong("hidden keys get a weight of exactly 0", "some hidden key still gets a weight");
    checker.compare("attention outputs with your mask, against the library's causal attention", yours.output,
                    library.output, output_tolerance);

    // Claim: with the mask, token t's output depends only on tokens 0..t.
    int64_t changed_token = -1, changed_output = -1;
    for (int64_t later = 1; later < T && changed_token < 0; ++later) {
        Tokens changed = tokens;
        for (Tensor* row : {&changed.query, &changed.key, &changed.value})
            for (int64_t c = 0; c < H; ++c) (*row)(later, c) += 1.0f + generator.normal();
        const Tensor output = attend_with(changed, mask).output;
        for (int64_t t = 0; t < later && changed_token < 0; ++t)
            if (largest_difference(output, yours.output, t, 1) > changed_by) changed_token = later, changed_output = t;
    }
    if (changed_token < 0) checker.ok("with your mask, changing a later token leaves every earlier token's output unchanged");
    else
        checker.wrong("with your mask, changing a later token leaves every earlier token's output unchanged",
                      "changing token " + std::to_string(changed_token) + " changed the output of token " +
                          std::to_string(changed_output) + ", which comes before it",
                      "token " + std::to_string(changed_output) + " sees a later token: hide every key n > m");

    // Claim: the last token sees a bag. Tokens 0..3 reversed, the last kept in place. (This holds with
    // no mask too, and with the transpose: the last token then sees all, or only itself. It is the
    // lesson's reminder of what the mask does not give, not a test of the mask.)
    const std::vector<int> prefix_reversed{3, 2, 1, 0, 4};
    const Tensor shuffled_output = attend_with(reordered(tokens, prefix_reversed), mask).output;
    const double last_moved = largest_difference(shuffled_output, yours.output, T - 1, 1);
    if (last_moved <= output_tolerance)
        checker.ok("with your mask, reversing the tokens before the last leaves the last token's output unchanged");
    else
        checker.wrong("with your mask, reversing the tokens before the last leaves the last token's output unchanged",
                      "it moved by " + exercise::number(last_moved),
                      "the last token must see every token, itself included, whatever their order");

    // Claim: without a mask attention is permutation-equivariant; with the mask it is not.
    const std::vector<int> order{2, 0, 4, 1, 3};  // moves every token
    const Tensor plain = attend_with(tokens, Tensor()).output;
    const double plain_moved =
        largest_difference(attend_with(reordered(tokens, order), Tensor()).output, rows_reordered(plain, order), 0, T);
    if (plain_moved <= output_tolerance)
        checker.ok("with no mask, attention(permuted tokens) == permuted attention(tokens): permutation-equivariant");
    else checker.wrong("with no mask, attention is permutation-equivariant", "it moved by " + exercise::number(plain_moved));
    const double masked_moved =
        largest_difference(attend_with(reordered(tokens, order), mask).output, rows_reordered(yours.output, order), 0, T);
    if (masked_moved > changed_by)
        checker.ok("with your mask it is not: after the permutation a token sees other tokens before it (outputs move by " +
                   exercise::number(masked_moved) + ")");
    else
        checker.wrong("with your mask, attention is no longer permutation-equivariant",
                      "permuting the tokens still only permutes the outputs",
                      "your mask hides nothing that depends on order: a missing causal mask");
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"causal_mask",
     "the causal mask, and what it does to attention's order-blindness (Where Am I?, \"Attention "
     "can't see order\")",
     "write causal_mask(T): a (T, T) tensor, 0 on and below the diagonal (the keys a query sees), "
                                      "-infinity above it"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
