// Lesson 03: Vaswani's sinusoids, the fixed table the original Transformer adds to its tokens.
// Prints a few rows, checks that every position up to 1024 has its own pattern, and measures the
// fast dimensions that tell neighbours apart against the slow ones that change over thousands.
// Mirrors "Adding position to the tokens" (Where Am I?). Leaves out the learned table (lesson 02)
// and why a model trained at length 32 still fails past it (the chapter's experiment, lesson 08).
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"
#include "positional/sinusoid.hpp"
#include "tensor/elementwise.hpp"

namespace {

constexpr int64_t D = 64;  // the width of the chapter's model
constexpr int64_t positions = 1024;
constexpr double base = 10000.0;  // Vaswani's

// Euclidean distance between rows p and q of a (T, D) table, over dimensions [first, first + count).
double row_distance(const wai::Tensor& table, int64_t p, int64_t q, int64_t first = 0, int64_t count = D) {
    double total = 0.0;
    for (int64_t c = first; c < first + count; ++c) {
        const double difference = double(table[p * D + c]) - table[q * D + c];
        total += difference * difference;
    }
    return std::sqrt(total);
}

// Step 1. pe[p, 2i] = sin(p·θ_i), pe[p, 2i+1] = cos(p·θ_i), θ_i = 10000^(-2i/D). Each pair of
// dimensions is a point going round a circle, one step of θ_i per position: pair 0 by one radian a
// step, the last pair by 10000^(-62/64), about 1/7500 of a radian. Prints a few rows of the table.
void show_the_table(const wai::Tensor& table) {
    // Pairs 0, 1, D/4 and the last, each as its sin and cos dimension (fewer when D is small).
    std::vector<int64_t> shown_dims;
    for (int64_t pair : {int64_t{0}, int64_t{1}, D / 4, D / 2 - 1})
        if (pair < D / 2 && (shown_dims.empty() || 2 * pair > shown_dims.back()))
            shown_dims.insert(shown_dims.end(), {2 * pair, 2 * pair + 1});

    lesson::heading("The table, D = " + std::to_string(D) + ": a few positions and dimensions");
    std::printf("  position");
    for (int64_t c : shown_dims) std::printf("  dim %-3lld", static_cast<long long>(c));
    std::printf("\n");
    for (int64_t p : {0, 1, 2, 3, 31, 100, 1000}) {
        std::printf("  %8lld", static_cast<long long>(p));
        for (int64_t c : shown_dims) std::printf("  %7.4f", table[p * D + c]);
        std::printf("\n");
    }
}

// Step 2. "Each position gets a unique pattern." Compare every pair of the first 1024 rows (523,776
// pairs) and report the two that are closest. Unique means more than "not bitwise equal":
// the closest pair is still far apart compared with float rounding. (With D = 64 the closest
// two are neighbours, which differ in the fast pairs; far-apart positions differ in the slow
// ones too. With a narrower table, D = 8 or 2, far-apart positions start to look alike.)
void check_every_position_is_unique(const wai::Tensor& table) {
    lesson::heading("Every position has its own pattern");
    double closest = INFINITY;
    int64_t closest_p = 0, closest_q = 0;
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t q = p + 1; q < positions; ++q) {
            const double distance = row_distance(table, p, q);
            if (distance < closest) closest = distance, closest_p = p, closest_q = q;
        }
    double row_length = 0.0;  // every pair is a point on the unit circle, so every row has length √(D/2)
    for (int64_t c = 0; c < D; ++c) row_length += double(table[closest_p * D + c]) * table[closest_p * D + c];
    std::printf("  the closest two of positions 0..%lld: %lld and %lld, distance %.4f (row %lld has length %.4f)\n",
                static_cast<long long>(positions - 1), static_cast<long long>(closest_p),
                static_cast<long long>(closest_q), closest, static_cast<long long>(closest_p), std::sqrt(row_length));
    lesson::check(closest > 0.1, "all " + std::to_string(positions * (positions - 1) / 2) + " pairs of positions 0.." +
                                     std::to_string(positions - 1) + " differ, by at least 0.1");
}

// How one pair of dimensions moves: the step between neighbouring positions, and its wavelength.
struct PairMotion {
    double step, wavelength;
};

// Prints pair i's wavelength and how far it moves between neighbours, checks that the step is the same
// at every position, and returns both.
PairMotion motion_of_pair(const wai::Tensor& table, int64_t pair) {
    const double theta = std::pow(base, -2.0 * pair / D);
    double smallest = INFINITY, largest = 0.0;
    for (int64_t p = 0; p + 1 < positions; ++p) {
        const double step = row_distance(table, p, p + 1, 2 * pair, 2);
        smallest = std::min(smallest, step), largest = std::max(largest, step);
    }
    std::printf("  pair %2lld (dims %lld, %lld): wavelength %.1f positions, %.3f turns by position %lld\n",
                static_cast<long long>(pair), static_cast<long long>(2 * pair),
                static_cast<long long>(2 * pair + 1), 2 * std::numbers::pi / theta,
                (positions - 1) * theta / (2 * std::numbers::pi), static_cast<long long>(positions - 1));
    std::printf("      moves %.6f to %.6f between neighbours, all along (2·sin(θ/2) = %.6f)\n", smallest, largest,
                2 * std::sin(theta / 2));
    lesson::check(std::abs(largest - 2 * std::sin(theta / 2)) < 1e-6 && largest - smallest < 1e-6,
                  "the step between neighbours is the same at every position: the chord 2·sin(θ/2)");
    return PairMotion{largest, 2 * std::numbers::pi / theta};
}

// Step 3. Fast and slow. Pair i completes a turn every 2π/θ_i positions, its wavelength, and moves a
// fixed distance between neighbours, the chord 2·sin(θ_i/2). Pair 0 tells neighbours apart
// (but repeats every 6.3 positions, so alone it cannot tell 0 from 44); the last pair barely
// moves between neighbours but is still in the first few percent of its turn at 1023. Between
// them, every scale; together, a unique pattern per position, like the hands of a clock.
void compare_fast_and_slow_pairs(const wai::Tensor& table) {
    lesson::heading("Fast and slow dimensions");
    const PairMotion fast = motion_of_pair(table, 0), slow = motion_of_pair(table, D / 2 - 1);
    std::printf("  the fast pair moves %.0f times as far as the slow one between neighbours\n", fast.step / slow.step);
    lesson::check(fast.step > 0.5, "the fastest pair tells neighbours apart: a step of over half its circle's radius");
    lesson::check(slow.wavelength > 1000,
                  "the slowest pair changes over thousands of positions: one turn takes over 1000");
}

// Step 4. Defined everywhere: the table for 32 positions is the first 32 rows of the table for 1024,
// and the rows past 32 are ordinary numbers. The chapter's experiment trains at 32 and tests at 128:
// the model meets rows 32..127 for the first time, and has learned nothing about what they mean.
void check_rows_past_training_exist(const wai::Tensor& table) {
    lesson::heading("Rows past the training length exist, and nothing learned them");
    const wai::Tensor short_table = wai::sinusoid_table(32, D, base);  // (32, D)
    bool same_rows = true;
    for (int64_t i = 0; i < short_table.numel(); ++i) same_rows = same_rows && short_table[i] == table[i];
    lesson::check(same_rows, "a row depends only on its position, not on the sequence length");
    lesson::check(wai::all_finite(table), "every row is made of finite numbers");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    const wai::Tensor table = wai::sinusoid_table(positions, D, base);  // (T, D) = (1024, 64)
    show_the_table(table);
    check_every_position_is_unique(table);
    compare_fast_and_slow_pairs(table);
    check_rows_past_training_exist(table);
    return lesson::finish("03");
}
