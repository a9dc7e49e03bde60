// Lesson 06: the course's RoPE exercise, worked. apply_rope is written here the way the course's
// PyTorch code writes it, checked against the library's rope_rotate, then used for the exercise's four
// dot products. Mirrors llm-mastery-23 "Exercise" (and where-am-i "RoPE: rotate, so only the
// difference counts"; `--try` is that section's "move both by +5" widget, in a terminal).
// Leaves out batches, heads and training: one vector of head dimension H = 8, as in the course.
//
//   build/lessons/06_rope_exercise          the worked solution, checked
//   build/lessons/06_rope_exercise --try    then type positions and shifts, and watch the score
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "lessons/course_rope.hpp"
#include "lessons/lesson.hpp"
#include "tensor/number_text.hpp"
#include "positional/rope.hpp"
#include "tensor/elementwise.hpp"

using wai::Shape;
using wai::Tensor;

namespace {

constexpr int64_t head_dim = 8;  // H, the course's example
constexpr double rope_base = 10000.0;

using course::rope_angles;  // lessons/course_rope.hpp, shared with the exercise

// A number for a check's failure line: "3.58e-07", "1e+04".
std::string short_number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

// x[..., first::2]: (T, H) -> (T, H/2), the columns first, first + 2, ...
Tensor every_other_column(const Tensor& x, int64_t first) {
    const int64_t T = x.size(0), H = x.size(1);
    Tensor out(Shape{T, H / 2});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) out[t * (H / 2) + i] = x[t * H + 2 * i + first];
    return out;
}

// angles.cos() or angles.sin(): (T, H/2) -> (T, H/2)
Tensor elementwise(const Tensor& angles, float (*function)(float)) {
    Tensor out(angles.shape());
    for (int64_t j = 0; j < angles.numel(); ++j) out[j] = function(angles[j]);
    return out;
}

// torch.stack([even, odd], dim=-1).flatten(-2): two (T, H/2) -> (T, H) with even[i] at 2i, odd[i] at 2i + 1.
Tensor interleave(const Tensor& even, const Tensor& odd) {
    const int64_t T = even.size(0), pairs = even.size(1);
    Tensor out(Shape{T, 2 * pairs});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < pairs; ++i) {
            out[t * 2 * pairs + 2 * i] = even[t * pairs + i];
            out[t * 2 * pairs + 2 * i + 1] = odd[t * pairs + i];
        }
    return out;
}

// The course's apply_rope, line for line: x (T, H), angles (T, H/2) -> (T, H), row t turned by row t's angles.
Tensor apply_rope(const Tensor& x, const Tensor& angles) {
    const Tensor x1 = every_other_column(x, 0), x2 = every_other_column(x, 1);  // x[..., ::2], x[..., 1::2]
    const Tensor cos = elementwise(angles, [](float a) { return std::cos(a); });  // angles.cos()
    const Tensor sin = elementwise(angles, [](float a) { return std::sin(a); });  // angles.sin()
    const Tensor rotated_even = wai::subtract(wai::multiply(x1, cos), wai::multiply(x2, sin));
    const Tensor rotated_odd = wai::add(wai::multiply(x1, sin), wai::multiply(x2, cos));
    return interleave(rotated_even, rotated_odd);
}

// (T, H): `vector` (H) on every row, so row t of apply_rope's result is the vector rotated to position t.
Tensor repeated_rows(const Tensor& vector, int64_t T) {
    const int64_t H = vector.numel();
    Tensor rows(Shape{T, H});
    for (int64_t t = 0; t < T; ++t) std::copy(vector.data(), vector.data() + H, rows.data() + t * H);
    return rows;
}

double row_dot(const Tensor& a, int64_t m, int64_t n) {
    const int64_t H = a.size(1);
    double total = 0.0;
    for (int64_t c = 0; c < H; ++c) total += static_cast<double>(a[m * H + c]) * a[n * H + c];
    return total;
}

// The exercise's score: the same vector as query at position m and key at position n, both rotated.
double score(const Tensor& vector, int64_t query_position, int64_t key_position) {
    const int64_t seq_len = std::max(query_position, key_position) + 1;
    const Tensor rotated = apply_rope(repeated_rows(vector, seq_len), rope_angles(head_dim, seq_len, rope_base));  // (T, H)
    return row_dot(rotated, query_position, key_position);
}

void print_score(const Tensor& vector, int64_t m, int64_t n) {
    std::printf("  query at %7lld, key at %7lld (distance %+7lld): score %+.4f\n", static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(n - m), score(vector, m, n));
}

// ---- --try: the chapter's widget. Positions are capped so a typo cannot ask for a huge table. ----
constexpr int64_t largest_position = 1000000;

// A number by tensor/number_text.hpp's rule: digits with an optional leading '-' (so "+-5",
// "--5" and "5x" are not numbers, and " 5" never reaches here: the line is split at spaces).
bool parse_number(const std::string& text, int64_t& value) {
    try {
        value = wai::parse_integer(text, "a position");
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

// "+5" or "-10": a shift of both positions, a sign and then digits.
bool parse_shift(const std::string& text, int64_t& value) {
    if (text.size() < 2 || !(text[1] >= '0' && text[1] <= '9')) return false;
    if (text[0] == '+') return parse_number(text.substr(1), value);
    return text[0] == '-' && parse_number(text, value);
}

void try_positions(const Tensor& vector) {
    lesson::heading("Your turn: type two positions ('3 103'), or move both ('+5', '-10'); 'q' or end of input quits.");
    int64_t query = 3, key = 103;
    print_score(vector, query, key);
    std::string line;
    while (std::printf("> "), std::fflush(stdout), std::getline(std::cin, line)) {
        std::istringstream words(line);
        std::vector<std::string> tokens;
        for (std::string word; words >> word;) tokens.push_back(word);
        int64_t a = 0, b = 0;
        if (tokens.size() == 1 && (tokens[0] == "q" || tokens[0] == "quit")) return;
        if (tokens.size() == 1 && parse_shift(tokens[0], a)) {
            if (a < -largest_position || a > largest_position) {  // checked first: query + a must not overflow
                std::printf("  a shift is at most %lld either way; that asked for %s.\n",
                            static_cast<long long>(largest_position), tokens[0].c_str());
                continue;
            }
            b = key + a;
            a = query + a;
        } else if (!(tokens.size() == 2 && parse_number(tokens[0], a) && parse_number(tokens[1], b))) {
            std::printf("  not understood: '%s'. Type two positions like '3 103', a shift like '+5' or '-5', or q.\n",
                        line.c_str());
            continue;
        }
        if (a < 0 || b < 0 || a > largest_position || b > largest_position) {
            std::printf("  positions run from 0 to %lld (the course's arange(seq_len)); that asked for %lld and %lld.\n",
                        static_cast<long long>(largest_position), static_cast<long long>(a), static_cast<long long>(b));
            continue;
        }
        query = a, key = b;
        print_score(vector, query, key);
    }
    std::printf("\n");
}

// Step 1. Is the transcription right? The library's rope_rotate (positional/rope.hpp) rotates row t
// of a (T, H) block by t * theta_i with the same interleaved pairs (2i, 2i+1). It computes the
// angles in double and rounds once; the course's code rounds the frequencies and the products to
// float32 on the way, so the two need not agree to the last bit. The check allows 1e-4.
void check_apply_rope_against_the_library(wai::Generator& generator) {
    lesson::heading("apply_rope, written like the course's PyTorch, against the library's rope_rotate");
    const int64_t seq_len = 114;  // positions 0..113: everything the exercise needs
    const Tensor sequence = Tensor::normal(Shape{seq_len, head_dim}, 0.0f, 1.0f, generator);  // (T, H)
    const Tensor ours = apply_rope(sequence, rope_angles(head_dim, seq_len, rope_base));       // (T, H)
    const Tensor library = wai::rope_rotate(                                                   // (T, H)
        sequence, wai::make_rope_table(seq_len, wai::rope_frequencies(head_dim, rope_base), wai::RopePairing::interleaved));
    double largest_difference = 0.0;
    for (int64_t j = 0; j < ours.numel(); ++j)
        largest_difference = std::max(largest_difference, std::abs(static_cast<double>(ours[j]) - library[j]));
    std::printf("  a random (T, H) = (%lld, %lld) sequence, positions 0..%lld: largest difference %.2e\n",
                static_cast<long long>(seq_len), static_cast<long long>(head_dim), static_cast<long long>(seq_len - 1),
                largest_difference);
    lesson::check(largest_difference < 1e-4, "apply_rope agrees with rope_rotate to 1e-4 at every position and dimension",
                  "largest difference " + short_number(largest_difference) + " at base " + short_number(rope_base));
}

// |v|^2 of a vector (H).
double length_squared(const Tensor& v) {
    double total = 0.0;
    for (int64_t c = 0; c < head_dim; ++c) total += static_cast<double>(v[c]) * v[c];
    return total;
}

// float32 scores of size |v|^2 carry about seven digits; 1e-4 * |v|^2 leaves room for the angles'
// own rounding and is still far below the gap between the two distances.
double score_tolerance(const Tensor& v) { return 1e-4 * length_squared(v); }

// Step 2. The exercise: one vector v is both the query and the key. At distance 0 the score is |v|^2
// wherever the pair sits, because a rotation keeps length: that half of the exercise is true by
// construction. Distance 100 is the real test: both vectors are turned, by different angles, and
// only the difference of the angles, 100 * theta_i, survives in the dot product.
void the_exercise(const Tensor& v) {
    lesson::heading("The exercise: the same vector v as query and key");
    std::printf("  v = (");
    for (int64_t c = 0; c < head_dim; ++c) std::printf("%s%+.3f", c ? ", " : "", v[c]);
    std::printf("), |v|^2 = %.4f\n", length_squared(v));
    print_score(v, 3, 3);
    print_score(v, 3, 103);
    print_score(v, 13, 13);
    print_score(v, 13, 113);

    const double tolerance = score_tolerance(v);
    const double near_gap = std::abs(score(v, 3, 3) - score(v, 13, 13));
    const double far_gap = std::abs(score(v, 3, 103) - score(v, 13, 113));
    std::printf("  |score(3, 3) - score(13, 13)| = %.2e, |score(3, 103) - score(13, 113)| = %.2e (tolerance %.1e)\n",
                near_gap, far_gap, tolerance);
    lesson::check(near_gap <= tolerance, "distance 0: moving both positions by +10 leaves the score unchanged");
    lesson::check(far_gap <= tolerance, "distance 100: moving both positions by +10 leaves the score unchanged");
    lesson::check(std::abs(score(v, 3, 103) - score(v, 3, 3)) > 1000 * tolerance,
                  "and the score does depend on the distance: 0 and 100 give different scores");
}

// Step 3. One more step than the exercise asks: any shift, not just +10.
void shift_both_positions(const Tensor& v) {
    lesson::heading("Distance 100 at other places: the score follows the distance only");
    double worst_shift = 0.0;
    for (int64_t shift : {0, 1, 50, 500, 5000}) {
        print_score(v, 3 + shift, 103 + shift);
        worst_shift = std::max(worst_shift, std::abs(score(v, 3 + shift, 103 + shift) - score(v, 3, 103)));
    }
    std::printf("  largest change from the score at (3, 103): %.2e\n", worst_shift);
    lesson::check(worst_shift <= score_tolerance(v), "shifts up to 5000 leave the score unchanged to 1e-4 * |v|^2");
}

}  // namespace

int main(int argc, char** argv) {
    const bool interactive = lesson::take_arguments(argc, argv, "--try");
    std::printf("This lesson is the worked solution of the exercise lessons/exercises/rope_rotation.cpp:\n"
                "try it first (make exercise EXERCISE=rope_rotation), then read on.\n");
    wai::Generator generator(23);
    check_apply_rope_against_the_library(generator);
    const Tensor v = Tensor::normal(Shape{head_dim}, 0.0f, 1.0f, generator);  // (H), the exercise's vector
    the_exercise(v);
    shift_both_positions(v);
    if (interactive) try_positions(v);  // Step 4, with --try: your own positions and shifts
    return lesson::finish("06");
}
