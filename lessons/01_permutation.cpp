// Lesson 01: attention cannot see order. Without a mask, permuting the input tokens permutes the
// outputs and changes nothing else; with a causal mask that is no longer true. First with the
// autograd ops, exactly as the chapter's numpy (T = 5, H = 8); then with our real layer,
// CausalSelfAttention under the "none" scheme, which is causal and has no other notion of place.
// Mirrors "Attention can't see order" (Where Am I?) and "The claim" (LLM Mastery 23).
// Leaves out training: what a model learns from the causal mask's signal is lesson 08's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "nn/attention.hpp"
#include "tensor/elementwise.hpp"

namespace {

constexpr int64_t T = 5, H = 8;
static_assert(T >= 3, "the last check shuffles the tokens before the last: it needs at least two of them");

// A random order of 0..n-1 (Fisher-Yates), like numpy's rng.permutation(n).
std::vector<int64_t> random_permutation(int64_t n, wai::Generator& generator) {
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    for (int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[generator.integer(i + 1)]);
    return order;
}

// x (T, C) -> (T, C): row i of the result is row order[i] of x, numpy's x[order].
wai::Tensor permute_rows(const wai::Tensor& x, const std::vector<int64_t>& order) {
    const int64_t C = x.shape().last();
    wai::Tensor out(x.shape());
    for (size_t i = 0; i < order.size(); ++i) std::copy_n(x.data() + order[i] * C, C, out.data() + i * C);
    return out;
}

double largest_difference(const wai::Tensor& a, const wai::Tensor& b) {
    double largest = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) largest = std::max(largest, double(std::abs(a[i] - b[i])));
    return largest;
}

// numpy's allclose, with a tolerance for float32 rather than float64.
bool all_close(const wai::Tensor& a, const wai::Tensor& b) {
    for (int64_t i = 0; i < a.numel(); ++i)
        if (std::abs(a[i] - b[i]) > 1e-6 + 1e-5 * std::abs(b[i])) return false;
    return a.shape() == b.shape();
}

void print_order(const char* name, const std::vector<int64_t>& order) {
    std::printf("  %s:", name);
    for (int64_t i : order) std::printf(" %lld", static_cast<long long>(i));
    std::printf("\n");
}

struct Projections {
    wai::Value query, key, value;  // (H, H) each
};

// The chapter's attend(): X (T, H) -> (T, H), scores q·kᵀ/√H, optionally causal, weights times v.
wai::Tensor attend(const wai::Tensor& X, const Projections& w, bool causal) {
    const wai::Value x(X);
    const wai::Value q = wai::matmul(x, w.query);  // (T, H)
    const wai::Value k = wai::matmul(x, w.key);    // (T, H)
    const wai::Value v = wai::matmul(x, w.value);  // (T, H)
    const float inverse_root_H = 1.0f / std::sqrt(float(H));
    const wai::Value scores = wai::scale(wai::matmul(q, k, false, true), inverse_root_H);  // (T, T)
    // weights (T, T) times v (T, H) -> (T, H)
    return wai::matmul(wai::softmax(scores, causal), v).value();
}

// The chapter's tokens and the permutation of its check, for step 3.
struct Tokens {
    wai::Tensor X;                // (T, H)
    std::vector<int64_t> order;  // a permutation of 0..T-1
};

// Step 1. The chapter's set-up: five tokens of width 8, and three random projections scaled by 1/√H so
// the scores stay of order 1. Our generator is not numpy's, so the numbers differ; the claims do not.
// Then the chapter's check, with the autograd ops: attention of the permuted tokens, unmasked and causal.
Tokens check_the_chapters_permutation(wai::Generator& generator) {
    const wai::Tensor X = wai::Tensor::normal({T, H}, 0.0f, 1.0f, generator);  // (T, H)
    Projections w;
    for (wai::Value* projection : {&w.query, &w.key, &w.value}) {
        const wai::Tensor unscaled = wai::Tensor::normal({H, H}, 0.0f, 1.0f, generator);  // (H, H)
        *projection = wai::Value(wai::scale(unscaled, 1.0f / std::sqrt(float(H))));
    }
    // Drawn again while it moves nothing (1 draw in 120 at T = 5, 1 in 6 at T = 3): the order that
    // leaves every token in place would make the causal check below fail for no reason.
    std::vector<int64_t> order = random_permutation(T, generator);
    while (std::is_sorted(order.begin(), order.end())) order = random_permutation(T, generator);

    lesson::heading("The chapter's check, with the autograd ops (T = " + std::to_string(T) +
                    ", H = " + std::to_string(H) + ")");
    print_order("permutation", order);

    // Why no mask means no order: permuting the rows of X permutes the rows of q, k and v alike, so
    // the score matrix has its rows and its columns permuted the same way. Each softmax row is the
    // same set of numbers in another order, and the weighted sum of v's rows does not care about
    // the order it adds in. Every token gets exactly the output it had, at its new place.
    const wai::Tensor plain = attend(X, w, false), plain_of_permuted = attend(permute_rows(X, order), w, false);
    const bool equivariant = all_close(plain_of_permuted, permute_rows(plain, order));
    std::printf("  attention(permuted input) == permuted attention(input): %s  (largest difference %.2g)\n",
                equivariant ? "True" : "False", largest_difference(plain_of_permuted, permute_rows(plain, order)));
    lesson::check(equivariant, "without a mask, attention is permutation-equivariant");

    // The causal mask lets token t see only tokens 0..t. After a permutation a token usually sees a
    // different set of predecessors, so its output changes, not just its place.
    const wai::Tensor causal = attend(X, w, true), causal_of_permuted = attend(permute_rows(X, order), w, true);
    const bool causal_equivariant = all_close(causal_of_permuted, permute_rows(causal, order));
    std::printf("  the same, with a causal mask: %s  (largest difference %.2g)\n",
                causal_equivariant ? "True" : "False",
                largest_difference(causal_of_permuted, permute_rows(causal, order)));
    lesson::check(!causal_equivariant, "with a causal mask, it is not");
    return {X, order};
}

// Step 2. What the mask gives away about place: with every score equal, token t spreads its weight
// evenly over its t+1 visible tokens, 1/(t+1) each. A model can read that as a rough count, but
// the step from one position to the next, 1/(t+1) - 1/(t+2), shrinks as the prefix grows: sharp
// near the start, blurred by position 30. This is the signal the no-position model of the
// chapter's experiment lives on.
void show_the_masks_counting_signal() {
    lesson::heading("The causal mask's counting signal: equal scores, weight on each visible token");
    constexpr int64_t long_T = 32;
    const wai::Tensor even = wai::softmax(wai::Value(wai::Tensor({long_T, long_T})), true).value();  // (T, T)
    bool one_over_count = true;
    for (int64_t t = 0; t < long_T; ++t)
        one_over_count = one_over_count && std::abs(even[t * long_T] - 1.0 / (t + 1)) < 1e-6;
    for (int64_t t : {0, 1, 2, 3, 15, 30})
        if (t + 1 < long_T)
            std::printf("  position %2lld: weight %.4f, %.4f more than at position %lld\n", static_cast<long long>(t),
                        even[t * long_T], even[t * long_T] - even[(t + 1) * long_T], static_cast<long long>(t + 1));
    lesson::check(one_over_count, "with equal scores, token t puts 1/(t+1) on each token it sees");
}

// The layer on one sequence: (T, D) -> (T, D), through (B, T, D) with B = 1, recording no graph
// (NoGradScope), since nothing here needs a gradient.
wai::Tensor run_layer(const wai::CausalSelfAttention& attention, const wai::Tensor& x) {
    const wai::NoGradScope no_graph;
    return attention.forward(wai::Value(x.reshaped({1, T, H}))).value().reshaped({T, H});
}

// Step 3. Now our model's own layer: permuting its input does not just permute its output.
void check_our_causal_layer(const wai::CausalSelfAttention& attention, const Tokens& tokens) {
    lesson::heading("Our CausalSelfAttention, scheme \"none\", one head (B = 1, T = " + std::to_string(T) +
                    ", D = " + std::to_string(H) + ")");
    const wai::Tensor output = run_layer(attention, tokens.X);                                    // (T, D)
    const wai::Tensor output_of_permuted = run_layer(attention, permute_rows(tokens.X, tokens.order));  // (T, D)
    std::printf("  layer(permuted input) == permuted layer(input): %s  (largest difference %.2g)\n",
                all_close(output_of_permuted, permute_rows(output, tokens.order)) ? "True" : "False",
                largest_difference(output_of_permuted, permute_rows(output, tokens.order)));
    lesson::check(!all_close(output_of_permuted, permute_rows(output, tokens.order)),
                  "permuting the input of our causal layer does not just permute its output");
}

// Step 4. What is still missing: within its prefix, a token sees a bag. Shuffle all tokens but the
// last and keep the last in place: the last sees the same set of tokens, so its output is unchanged,
// though the order before it is not. "dog bites man" and "man bites dog", said before the same
// last word, look the same to that word. Telling them apart is what position schemes are for.
void check_the_prefix_is_a_bag(const wai::CausalSelfAttention& attention, const Tokens& tokens,
                               wai::Generator& generator) {
    // Drawn again while it leaves every token in place: an order that moves nothing would make the
    // check below hold for no reason (with 4 tokens before the last, 1 draw in 24 does that).
    std::vector<int64_t> shuffle_prefix = random_permutation(T - 1, generator);
    while (std::is_sorted(shuffle_prefix.begin(), shuffle_prefix.end()))
        shuffle_prefix = random_permutation(T - 1, generator);
    shuffle_prefix.push_back(T - 1);
    // What the order does, read from the order itself: whether the last place still holds the last
    // token, and how many of the places before it hold another token than their own.
    const bool last_stays = shuffle_prefix[T - 1] == T - 1;
    int64_t moved = 0;
    for (int64_t i = 0; i < T - 1; ++i) moved += shuffle_prefix[i] != i;
    print_order(last_stays ? "shuffle all but the last" : "shuffle, the last token too", shuffle_prefix);
    std::printf("  it moves %lld of the %lld tokens before the last, and %s\n", static_cast<long long>(moved),
                static_cast<long long>(T - 1),
                last_stays ? "leaves the last in place" : ("puts token " + std::to_string(shuffle_prefix[T - 1]) +
                                                           " in the last place").c_str());
    const wai::Tensor output = run_layer(attention, tokens.X);                                   // (T, D)
    const wai::Tensor output_of_shuffled = run_layer(attention, permute_rows(tokens.X, shuffle_prefix));  // (T, D)
    double last_row_difference = 0.0;
    for (int64_t c = 0; c < H; ++c)
        last_row_difference = std::max(last_row_difference,
                                       double(std::abs(output_of_shuffled[(T - 1) * H + c] - output[(T - 1) * H + c])));
    std::printf("  the last token's output moved by at most %.2g\n", last_row_difference);
    char difference[64];
    std::snprintf(difference, sizeof difference, "it moved by %.2g, above 1e-5", last_row_difference);
    lesson::check(last_row_difference < 1e-5, "the last token's output ignores the order of the tokens before it", difference);
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    wai::Generator generator(0);
    const Tokens tokens = check_the_chapters_permutation(generator);
    show_the_masks_counting_signal();
    // Our model's attention layer. CausalSelfAttention always applies the causal mask, and the base
    // PositionEncoding is the "none" scheme: it adds nothing, rotates nothing, biases nothing. It has
    // learned weights (a Linear for q, k, v and one for the output), drawn here from the generator.
    const wai::PositionEncoding none;
    const wai::CausalSelfAttention attention(H, 1, none, generator);
    check_our_causal_layer(attention, tokens);
    check_the_prefix_is_a_bag(attention, tokens, generator);
    return lesson::finish("01");
}
