// Lesson 02: learned absolute positions, GPT-2's way. A token table and a position table, one row
// per position, added together before the first layer; position 5 always gets the same vector; and
// the failure mode: a table of 128 rows has no row for position 128.
// Mirrors "Worked example: learned absolute embeddings" and "Failure mode: context-length
// extrapolation" (LLM Mastery 23), and "Adding position to the tokens" (Where Am I?).
// Leaves out the sinusoid table (lesson 03) and training a model with it (lesson 08).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "nn/adamw.hpp"
#include "nn/embedding.hpp"
#include "positional/learned.hpp"
#include "positional/make_position.hpp"

namespace {

// The course's GPT-2 example has V = 50257, D = 768 and 1024 rows. Ours are the chapter's
// experiment: lag's 16 tokens, width 64, a table of 128 rows. The mechanism is the same.
constexpr int64_t V = 16, D = 64;
constexpr int64_t train_length = 32;  // the chapter trains on sequences of 32 tokens
static_assert(train_length >= 1 && train_length < wai::learned_table_rows,
              "step 3 looks at the rows past the training length: train_length must be from 1 to 127 (the table has 128 rows)");

std::vector<int> random_tokens(int64_t count, wai::Generator& generator) {
    std::vector<int> tokens(count);
    for (int& token : tokens) token = static_cast<int>(generator.integer(V));
    return tokens;
}

// What was added at (b, t): x[b, t, :] - h[b, t, :], for x and h of shape (B, T, D).
std::vector<float> added_at(const wai::Tensor& x, const wai::Tensor& h, int64_t b, int64_t t) {
    const int64_t T = x.size(1), offset = (b * T + t) * D;
    std::vector<float> added(D);
    for (int64_t c = 0; c < D; ++c) added[c] = x[offset + c] - h[offset + c];
    return added;
}

// Largest difference between a vector and row `row` of a (rows, D) table.
double distance_to_row(const std::vector<float>& vector, const wai::Tensor& table, int64_t row) {
    double largest = 0.0;
    for (int64_t c = 0; c < D; ++c) largest = std::max(largest, double(std::abs(vector[c] - table[row * D + c])));
    return largest;
}

// The two tables: token ids -> vectors, positions -> vectors.
struct Tables {
    wai::Embedding tokens;           // (V, D)
    wai::LearnedPositions positions;  // (128, D)
};

// The course's example batch: its token ids, their vectors, and those plus the positions' rows.
constexpr int64_t B = 2, T = 10;
struct CourseBatch {
    std::vector<int> tokens;  // (B, T)
    wai::Value h, x;           // (B, T, D) each
};

// Step 1. The course's example: a batch of two sequences of ten tokens. The token embedding gathers
// one row per token id; the position table adds row t to whatever token sits at position t.
CourseBatch add_the_two_tables(const Tables& tables, wai::Generator& generator) {
    lesson::heading("Token table + position table (B = " + std::to_string(B) + ", T = " + std::to_string(T) + ")");
    CourseBatch batch;
    batch.tokens = random_tokens(B * T, generator);
    batch.h = tables.tokens.forward(batch.tokens, {B, T});
    batch.x = tables.positions.add_to_embeddings(batch.h);
    std::printf("  token table %s, position table %s\n", tables.tokens.table.shape().str().c_str(),
                tables.positions.table.shape().str().c_str());
    std::printf("  token ids (B, T) = (%lld, %lld) -> token vectors %s -> plus positions 0..%lld -> x %s\n",
                static_cast<long long>(B), static_cast<long long>(T), batch.h.shape().str().c_str(),
                static_cast<long long>(T - 1), batch.x.shape().str().c_str());
    lesson::check(batch.x.shape() == wai::Shape({B, T, D}),
                  "x has shape (B, T, D) = " + batch.x.shape().str() + ", like the course's torch.Size([2, 10, 768]) with D = " +
                      std::to_string(D));
    return batch;
}

// Step 2. "Position 5 always gets the exact same learned vector added, regardless of what token sits
// there or how long the sequence is." Compare what was added at position 5 in both sequences
// of the batch, and in a third sequence of length 50 with other tokens, against row 5. The point of
// adding it: the same token at two places is now two different vectors.
void check_position_5_gets_row_5(const Tables& tables, const CourseBatch& batch, wai::Generator& generator) {
    lesson::heading("What was added at position 5");
    const std::vector<int> long_tokens = random_tokens(50, generator);
    const wai::Value long_h = tables.tokens.forward(long_tokens, {1, 50});  // (1, 50, D)
    const wai::Value long_x = tables.positions.add_to_embeddings(long_h);   // (1, 50, D)
    const std::vector<std::vector<float>> added = {added_at(batch.x.value(), batch.h.value(), 0, 5),
                                                   added_at(batch.x.value(), batch.h.value(), 1, 5),
                                                   added_at(long_x.value(), long_h.value(), 0, 5)};
    const std::string where[] = {"sequence 0 of " + std::to_string(B) + ", length " + std::to_string(T),
                                 "sequence 1 of " + std::to_string(B) + ", length " + std::to_string(T),
                                 "a sequence of length 50"};
    double farthest_from_row_5 = 0.0;
    for (size_t i = 0; i < added.size(); ++i) {
        std::printf("  %-27s token %2d: [%7.4f %7.4f %7.4f %7.4f ...]\n", where[i].c_str(),
                    i < 2 ? batch.tokens[i * T + 5] : long_tokens[5], added[i][0], added[i][1], added[i][2], added[i][3]);
        farthest_from_row_5 = std::max(farthest_from_row_5, distance_to_row(added[i], tables.positions.table.value(), 5));
    }
    const wai::Tensor& rows = tables.positions.table.value();  // (128, D)
    std::printf("  %-37s [%7.4f %7.4f %7.4f %7.4f ...]\n", "row 5 of the table:", rows[5 * D], rows[5 * D + 1],
                rows[5 * D + 2], rows[5 * D + 3]);
    lesson::check(farthest_from_row_5 < 1e-5, "position 5 gets row 5, whatever the token and the sequence length");

    const std::vector<int> same_token(T, 7);
    const wai::Value same_h = tables.tokens.forward(same_token, {1, T});   // (1, T, D)
    const wai::Value same_x = tables.positions.add_to_embeddings(same_h);  // (1, T, D)
    double change = 0.0;
    for (int64_t c = 0; c < D; ++c)
        change = std::max(change, double(std::abs(same_x.value()[2 * D + c] - same_x.value()[7 * D + c])));
    std::printf("  token 7 at positions 2 and 7: vectors differ by up to %.4f\n", change);
    lesson::check(change > 0.1, "the same token at two positions enters the model as two different vectors");
}

// Step 3. Training only ever reaches the rows it uses. The chapter trains on sequences of 32 tokens,
// so rows 32..127 receive no gradient at all. One backward pass at T = 32 shows it.
void check_unused_rows_get_no_gradient(Tables& tables, wai::Generator& generator) {
    lesson::heading("Training at length " + std::to_string(train_length) + " never touches the rows past it");
    const std::vector<int> train_tokens = random_tokens(train_length, generator);
    const wai::Value train_x =
        tables.positions.add_to_embeddings(tables.tokens.forward(train_tokens, {1, train_length}));  // (1, T, D)
    wai::Value loss = wai::sum(wai::multiply(train_x, train_x));                                     // ()
    loss.backward();
    const wai::Tensor& gradient = tables.positions.table.grad();  // (128, D)
    double largest_used = 0.0, largest_unused = 0.0;
    for (int64_t i = 0; i < gradient.numel(); ++i) {
        double& largest = i < train_length * D ? largest_used : largest_unused;
        largest = std::max(largest, double(std::abs(gradient[i])));
    }
    std::printf("  largest gradient in rows 0..%lld: %.4f; in rows %lld..%lld: %.4f\n",
                static_cast<long long>(train_length - 1), largest_used, static_cast<long long>(train_length),
                static_cast<long long>(wai::learned_table_rows - 1), largest_unused);
    lesson::check(largest_used > 0.0 && largest_unused == 0.0,
                  "the rows past the training length get exactly zero gradient");
}

// Step 4. With AdamW, an untrained row still moves a little: decoupled weight decay shrinks every
// parameter by (1 - lr·wd) each step. Take the chapter's 2,000 steps, the same gradient each time
// (step 3's), and watch the table's last row, which no training length shorter than the table reaches.
void check_weight_decay_alone_moves_unused_rows(Tables& tables) {
    constexpr int steps = 2000;
    const wai::Tensor& rows = tables.positions.table.value();  // (128, D)
    const int64_t unused = wai::learned_table_rows - 1;
    const std::vector<float> unused_before(rows.data() + unused * D, rows.data() + (unused + 1) * D);
    wai::AdamW optimizer(tables.positions.parameters());
    for (int step = 0; step < steps; ++step) optimizer.step();
    const double lr_wd = double(optimizer.config.lr) * optimizer.config.weight_decay;
    const double decay_only = std::pow(1.0 - lr_wd, steps);
    // How far float32 may take the row from (1 - lr·wd)^steps without learning anything. The
    // optimizer multiplies by 1 - lr·wd rounded to a float32 (1 - 168·2^-24 for the defaults, off by
    // a relative 1.4e-8), and each of its `steps` multiplications rounds again, by at most half a
    // float32 step near 1 (a relative 2^-24). The two compound: the bound grows with the step count,
    // about 1.5e-4 of a number's starting size after 2,000 steps, while a single Adam update moves a
    // number by about lr = 1e-3.
    const float decay_in_float = 1.0f - optimizer.config.lr * optimizer.config.weight_decay;
    const double per_step = std::abs(double(decay_in_float) - (1.0 - lr_wd)) / (1.0 - lr_wd);
    const double rounding = std::numeric_limits<float>::epsilon() / 2;
    const double allowed = std::pow((1.0 + per_step) * (1.0 + rounding), steps) - 1.0;
    double length_before = 0.0, length_after = 0.0;
    int64_t worst = 0;  // the number farthest past its allowance
    double worst_excess = -1.0;
    for (int64_t c = 0; c < D; ++c) {
        length_before += double(unused_before[c]) * unused_before[c];
        length_after += double(rows[unused * D + c]) * rows[unused * D + c];
        const double excess = std::abs(rows[unused * D + c] - decay_only * unused_before[c]) -
                              allowed * std::abs(unused_before[c]);
        if (excess > worst_excess) worst_excess = excess, worst = c;
    }
    std::printf("  after %d AdamW steps row %lld has %.4f of its starting length; (1 - lr·wd)^%d = %.4f\n", steps,
                static_cast<long long>(unused), std::sqrt(length_after / length_before), steps, decay_only);
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "number %lld is %.7g, (1 - lr·wd)^%d times its start %.7g is %.7g, allowed %.2g apart",
                  static_cast<long long>(worst), rows[unused * D + worst], steps, unused_before[worst],
                  decay_only * unused_before[worst], allowed * std::abs(unused_before[worst]));
    lesson::check(worst_excess <= 0.0, "an unused row is only shrunk by weight decay: it learns nothing", numbers);
}

// Step 5. The failure mode. A sequence of 129 tokens needs position 128; the table's rows are 0..127.
// PyTorch raises an index error; we refuse with a message that says which position and why,
// never clamping to row 127 (a silent clamp would hand the model a label it has seen, for a
// place it has not). Interpolating or rescaling positions is a different method, made on purpose.
void check_the_failure_mode(const Tables& tables, wai::Generator& generator) {
    lesson::heading("The failure mode: a sequence longer than the table");
    const std::vector<int> too_long = random_tokens(wai::learned_table_rows + 1, generator);
    const std::vector<int> longest = random_tokens(wai::learned_table_rows, generator);
    const wai::Value fits =
        tables.positions.add_to_embeddings(tables.tokens.forward(longest, {1, wai::learned_table_rows}));
    std::printf("  a sequence of length %lld uses rows 0..%lld: x %s\n",
                static_cast<long long>(wai::learned_table_rows), static_cast<long long>(wai::learned_table_rows - 1),
                fits.shape().str().c_str());
    bool refused = false;
    try {
        tables.positions.add_to_embeddings(tables.tokens.forward(too_long, {1, wai::learned_table_rows + 1}));
    } catch (const std::out_of_range& error) {
        refused = true;
        std::printf("  a sequence of length %lld: %s\n", static_cast<long long>(wai::learned_table_rows + 1),
                    error.what());
    }
    lesson::check(refused, "asking for position " + std::to_string(wai::learned_table_rows) + " of a " +
                               std::to_string(wai::learned_table_rows) + "-row table is an error, not a silent clamp");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    wai::Generator generator(2);
    Tables tables{wai::Embedding(V, D, generator), wai::LearnedPositions(wai::learned_table_rows, D, generator)};
    const CourseBatch batch = add_the_two_tables(tables, generator);
    check_position_5_gets_row_5(tables, batch, generator);
    check_unused_rows_get_no_gradient(tables, generator);
    check_weight_decay_alone_moves_unused_rows(tables);
    check_the_failure_mode(tables, generator);
    return lesson::finish("02");
}
