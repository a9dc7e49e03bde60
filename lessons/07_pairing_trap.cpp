// Lesson 07: the pairing trap. Which dimensions RoPE turns together is a convention: interleaved
// (2i, 2i+1), as in the RoFormer paper and the chapter, or half-split (i, i + H/2), as in Hugging Face's
// Llama (rotate_half). The two give the same scores up to a fixed permutation of dimensions; a model
// trained with one and run with the other breaks, and permuting its query and key weights repairs it.
// Mirrors where-am-i, "RoPE: rotate, so only the difference counts" (the paragraph "One trap for anyone
// loading real weights"). Leaves out real checkpoints: the model is a small one trained here, on lag.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "nn/adamw.hpp"
#include "positional/rope.hpp"
#include "tasks/evaluate.hpp"

using wai::RopePairing;
using wai::Shape;
using wai::Tensor;

namespace {

// Whether part 3's repair permutes the qkv biases too, as a complete conversion does. With false
// (a converter that forgets them) the answers can stay while every logit moves, and part 3 checks that.
const bool permute_bias = true;

// The fixed permutation. Pair i sits at (2i, 2i+1) interleaved and at (i, i + H/2) half-split, so
// half-split position j holds interleaved dimension order[j]: 2j for j < H/2, 2(j - H/2) + 1 after.
std::vector<int64_t> half_split_order(int64_t H) {
    std::vector<int64_t> order(H);
    for (int64_t i = 0; i < H / 2; ++i) {
        order[i] = 2 * i;
        order[i + H / 2] = 2 * i + 1;
    }
    return order;
}

void print_order(const std::vector<int64_t>& order) {
    std::printf("  half-split position j takes interleaved dimension:");
    for (int64_t source : order) std::printf(" %lld", static_cast<long long>(source));
    std::printf("\n");
}

// x (T, H) -> (T, H), column j taken from column order[j].
Tensor permute_columns(const Tensor& x, const std::vector<int64_t>& order) {
    const int64_t T = x.size(0), H = x.size(1);
    Tensor out(x.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t j = 0; j < H; ++j) out[t * H + j] = x[t * H + order[j]];
    return out;
}

// Every query-key score of one head: q, k (T, H), rotated with `pairing` -> (T, T), in double.
std::vector<double> rope_scores(const Tensor& q, const Tensor& k, RopePairing pairing) {
    const int64_t T = q.size(0), H = q.size(1);
    const wai::RopeTable table = wai::make_rope_table(T, wai::rope_frequencies(H, 10000.0), pairing);
    const Tensor q_rotated = wai::rope_rotate(q, table), k_rotated = wai::rope_rotate(k, table);
    std::vector<double> scores(T * T, 0.0);
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n)
            for (int64_t c = 0; c < H; ++c)
                scores[m * T + n] += static_cast<double>(q_rotated[m * H + c]) * k_rotated[n * H + c];
    return scores;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double largest = 0.0;
    for (size_t j = 0; j < a.size(); ++j) largest = std::max(largest, std::abs(a[j] - b[j]));
    return largest;
}

// What a weight converter does: in a qkv weight (3D, D) or bias (3D), row j of each head's block of
// the query part and of the key part takes old row order[j]. The value rows stay: values never rotate.
void permute_query_key_rows(Tensor& rows, int64_t D, int64_t H, const std::vector<int64_t>& order) {
    const int64_t row_length = rows.rank() == 2 ? rows.size(1) : 1;
    const Tensor old = rows;
    for (int64_t part = 0; part < 2; ++part)  // 0: queries, 1: keys
        for (int64_t head_start = part * D; head_start < (part + 1) * D; head_start += H)
            for (int64_t j = 0; j < H; ++j)
                for (int64_t c = 0; c < row_length; ++c)
                    rows[(head_start + j) * row_length + c] = old[(head_start + order[j]) * row_length + c];
}

// The model's logits at every position of the batch, with no graph, run with `options` (another
// RoPE pairing in place of the trained one): (B, T, V).
Tensor logits_of(const wai::Transformer& model, const wai::Batch& batch, const wai::ForwardOptions& options = {}) {
    wai::NoGradScope no_grad;
    return model.forward(batch.tokens, batch.B, batch.T, options).value();
}

// The model's answer (argmax class) at every position of the batch.
std::vector<int> predictions(const wai::Transformer& model, const wai::Batch& batch, const wai::ForwardOptions& options = {}) {
    const Tensor logits = logits_of(model, batch, options);  // (B, T, V)
    const int64_t classes = logits.shape().last();
    std::vector<int> answers(batch.B * batch.T);
    for (int64_t n = 0; n < batch.B * batch.T; ++n) {
        const float* row = logits.data() + n * classes;
        answers[n] = static_cast<int>(std::max_element(row, row + classes) - row);
    }
    return answers;
}

// Step 1. The mathematics. Take random queries and keys (T, H) = (16, 8). Score them with interleaved
// RoPE; then permute the dimensions of both into the half-split layout and score with half-split
// RoPE. Each pair is the same two numbers turned by the same angle, only stored elsewhere, and a
// dot product does not care in which order it adds its terms: the scores agree.
void check_one_rotation_in_two_orders() {
    const int64_t T = 16, small_H = 8;
    lesson::heading("1. The two conventions are one rotation, stored in two orders (H = " + std::to_string(small_H) + ")");
    wai::Generator generator(7);
    const Tensor q = Tensor::normal(Shape{T, small_H}, 0.0f, 1.0f, generator);  // (T, H)
    const Tensor k = Tensor::normal(Shape{T, small_H}, 0.0f, 1.0f, generator);  // (T, H)
    const std::vector<int64_t> order = half_split_order(small_H);
    print_order(order);
    const std::vector<double> interleaved = rope_scores(q, k, RopePairing::interleaved);
    const double permuted_gap = largest_difference(
        interleaved, rope_scores(permute_columns(q, order), permute_columns(k, order), RopePairing::half_split));
    const double mixed_gap = largest_difference(interleaved, rope_scores(q, k, RopePairing::half_split));
    std::printf("  all %lld x %lld scores, interleaved vs half-split on permuted q and k: largest difference %.2e\n",
                static_cast<long long>(T), static_cast<long long>(T), permuted_gap);
    std::printf("  the same without the permutation (the trap):                   largest difference %.2e\n", mixed_gap);
    lesson::check(permuted_gap < 1e-6, "with the fixed permutation the two conventions give the same scores");
    lesson::check(mixed_gap > 0.1, "without it they do not: the same numbers paired differently are other scores");
}

// A model trained with interleaved RoPE, and what it gave on its test batch as trained.
struct TrainedModel {
    std::unique_ptr<wai::Transformer> model;
    // The trained model run with the other convention: a half-split RoPE in place of its own.
    std::unique_ptr<wai::RotaryPositions> half_split;
    wai::ForwardOptions with_half_split;
    int64_t D = 0, H = 0, length = 0, vocab = 0;  // width, head dimension, sequence length, classes
    wai::Batch test_batch;
    double accuracy = 0.0;
    std::vector<int> answers;  // (B, T): the argmax class at every position
    Tensor logits;             // (B, T, V)
};

// Step 2. The trap in a model. Train a small Transformer on lag with interleaved RoPE, as the chapter
// does, and keep what it gives on fresh test sequences.
TrainedModel train_with_interleaved_rope() {
    lesson::heading("2. A model trained with interleaved RoPE, run with half-split RoPE");
    wai::TransformerConfig config;  // lag: 16 tokens in, 16 classes out
    config.dim = 32, config.heads = 2, config.mlp_hidden = 64;
    TrainedModel trained;
    trained.D = config.dim, trained.H = config.dim / config.heads, trained.vocab = config.vocab;
    const int64_t D = trained.D, H = trained.H;
    wai::Generator init(7), data(8), test(9);
    trained.model = std::make_unique<wai::Transformer>(
        config, std::make_unique<wai::RotaryPositions>(H, 10000.0, RopePairing::interleaved), init);
    trained.half_split = std::make_unique<wai::RotaryPositions>(H, 10000.0, RopePairing::half_split);
    trained.with_half_split.position = trained.half_split.get();
    wai::Transformer& model = *trained.model;
    wai::AdamW optimizer(model.parameters());
    const int64_t steps = 200, batch_size = 32, length = 32, lag = 3;
    trained.length = length;
    std::printf("  D = %lld, %lld layers, %lld heads of H = %lld, lag %lld, %lld steps of batch %lld at length %lld\n",
                static_cast<long long>(D), static_cast<long long>(config.layers), static_cast<long long>(config.heads),
                static_cast<long long>(H), static_cast<long long>(lag), static_cast<long long>(steps),
                static_cast<long long>(batch_size), static_cast<long long>(length));
    const auto start = std::chrono::steady_clock::now();
    for (int64_t step = 1; step <= steps; ++step) {
        const wai::Batch batch = wai::lag_batch(data, batch_size, length, config.vocab, lag);
        wai::Value loss = wai::cross_entropy(model.forward(batch.tokens, batch.B, batch.T), batch.targets);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        if (step == 1 || step % 50 == 0 || step == steps)  // the last step's loss too, whatever steps is
            std::printf("  step %3lld: loss %.4f\n", static_cast<long long>(step), loss.value().item());
    }
    std::printf("  trained in %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());

    const int64_t test_sequences = 256;
    trained.test_batch = wai::lag_batch(test, test_sequences, length, config.vocab, lag);
    trained.accuracy = wai::evaluate(model, trained.test_batch, length).all.value();
    trained.answers = predictions(model, trained.test_batch);
    trained.logits = logits_of(model, trained.test_batch);
    return trained;
}

// Step 2, continued. Then run the same weights through half-split RoPE, as loading RoFormer-style
// weights into rotate_half code would: nothing errors, the shapes all fit, and the answers are wrong.
void run_with_half_split_rope(TrainedModel& trained) {
    const double chance = 1.0 / static_cast<double>(trained.vocab);
    const double mixed = wai::evaluate(*trained.model, trained.test_batch, trained.length, trained.with_half_split).all.value();
    std::printf("  accuracy on %lld fresh sequences, interleaved as trained: %.3f\n",
                static_cast<long long>(trained.test_batch.B), trained.accuracy);
    std::printf("  the same weights, half-split RoPE:                      %.3f   (chance %.3f)\n", mixed, chance);
    lesson::check(trained.accuracy > 0.95, "the model learns lag with interleaved RoPE (accuracy above 0.95)",
                  "accuracy " + std::to_string(trained.accuracy));
    lesson::check(mixed < trained.accuracy / 2, "run with the other convention, its accuracy falls below half of that",
                  std::to_string(mixed) + " against " + std::to_string(trained.accuracy));
}

// Step 3. The repair is the permutation of step 1, applied once to the weights that make q and k: the
// rows of each attention's qkv weight and bias. Hugging Face's conversion script for Meta's Llama
// weights does the same to wq and wk. Every score is then the same sum in another order, so the
// model computes the same logits, up to float rounding: not just as many right answers, or the same
// argmax (a repair that forgets the biases can keep both while every logit moves).
void repair_by_permuting_the_weights(TrainedModel& trained) {
    const int64_t D = trained.D, H = trained.H;
    wai::Transformer& model = *trained.model;
    lesson::heading(std::string("3. Permute the query and key rows of every qkv weight") +
                    (permute_bias ? " and bias" : ", not the biases") + ", keep half-split RoPE");
    const std::vector<int64_t> model_order = half_split_order(H);
    print_order(model_order);
    for (auto& [name, parameter] : model.named_parameters()) {
        if (name.find("attention.qkv.") == std::string::npos) continue;
        if (!permute_bias && name.ends_with(".bias")) {  // (3D), left as it was trained
            std::printf("  %-30s %s: left as trained\n", name.c_str(), parameter.shape().str().c_str());
            continue;
        }
        permute_query_key_rows(parameter.value(), D, H, model_order);
        std::printf("  %-30s %s: rows 0..%lld (q) and %lld..%lld (k) permuted within each head, %lld..%lld (v) kept\n",
                    name.c_str(), parameter.shape().str().c_str(), static_cast<long long>(D - 1),
                    static_cast<long long>(D), static_cast<long long>(2 * D - 1), static_cast<long long>(2 * D),
                    static_cast<long long>(3 * D - 1));
    }
    const double repaired = wai::evaluate(model, trained.test_batch, trained.length, trained.with_half_split).all.value();
    const std::vector<int> repaired_answers = predictions(model, trained.test_batch, trained.with_half_split);
    const Tensor repaired_logits = logits_of(model, trained.test_batch, trained.with_half_split);  // (B, T, V)
    double largest_logit_change = 0.0, largest_logit = 0.0;
    for (int64_t j = 0; j < trained.logits.numel(); ++j) {
        largest_logit_change =
            std::max(largest_logit_change, std::abs(static_cast<double>(repaired_logits[j]) - trained.logits[j]));
        largest_logit = std::max(largest_logit, std::abs(static_cast<double>(trained.logits[j])));
    }
    // The same sums added in another order: float32 rounding, relative to the logits' size, and no more.
    const double logit_tolerance = 1e-5 * std::max(1.0, largest_logit);
    int64_t same_answers = 0;
    for (size_t n = 0; n < trained.answers.size(); ++n) same_answers += trained.answers[n] == repaired_answers[n];
    std::printf("  accuracy, permuted weights with half-split RoPE: %.3f\n", repaired);
    std::printf("  answers equal to the trained model's: %lld of %zu positions\n", static_cast<long long>(same_answers),
                trained.answers.size());
    std::printf("  logits against the trained model's: largest difference %.2e (largest logit %.2f, tolerance %.1e)\n",
                largest_logit_change, largest_logit, logit_tolerance);
    if (!permute_bias) {
        // Each bias still adds its old rows' numbers where the permuted weight rows now sit: the query
        // and key of every position move, and so does every logit. The answers may or may not follow.
        std::printf("  (the trained model's accuracy: %.3f)\n", trained.accuracy);
        lesson::check(largest_logit_change > logit_tolerance,
                      "with the biases left as trained, the logits move by more than float rounding: the repair is incomplete",
                      "they differ by up to " + std::to_string(largest_logit_change));
        return;
    }
    lesson::check(largest_logit_change <= logit_tolerance,
                  "the permuted weights give back the trained model's logits, to float rounding",
                  "they differ by up to " + std::to_string(largest_logit_change));
    lesson::check(repaired == trained.accuracy, "and the trained accuracy, exactly",
                  std::to_string(repaired) + " against " + std::to_string(trained.accuracy));
    lesson::check(same_answers == static_cast<int64_t>(trained.answers.size()),
                  "and the same answer at every position, scored or not",
                  std::to_string(same_answers) + " of " + std::to_string(trained.answers.size()));
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    wai::set_threads(1);  // a small model: a second thread gains little, and it loses a lot on a busy machine
    check_one_rotation_in_two_orders();
    TrainedModel trained = train_with_interleaved_rope();
    run_with_half_split_rope(trained);
    repair_by_permuting_the_weights(trained);
    return lesson::finish("07");
}
