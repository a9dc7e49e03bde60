// Lesson 05: RoPE. Rotate each pair of query and key dimensions by position·θ_i; then the score of
// a query at m and a key at n depends only on n - m. The chapter's printed check, recomputed with
// our rotation (H = 8, base 10000): equal scores at (3, 5), (10, 12), (100, 102), a different one
// at (3, 10), and a rotation that keeps every vector's length.
// Then the chapter's own q and k (drawn by its numpy code, shipped in lessons/data/) through the same
// rotation, which must give its printed scores.
// Mirrors "RoPE: rotate, so only the difference counts" (Where Am I?) and "Worked example: RoPE,
// rotating instead of adding" (LLM Mastery 23). Leaves out the course's exercise (lesson 06),
// the pairing convention (lesson 07), the choice of base (lesson 10), and the checks of the
// library's rope op and of attention's backward through it (tests/test_positional.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lessons/lesson.hpp"
#include "positional/rope.hpp"
#include "tensor/gemm.hpp"

// lessons/data/ in the source tree, set by lessons/lessons.mk, so the lesson finds its data wherever it runs.
#ifndef WAI_LESSONS_DATA_DIR
#define WAI_LESSONS_DATA_DIR "lessons/data"
#endif

namespace {

constexpr int64_t H = 8;    // head dimension: 4 pairs
constexpr int64_t T = 128;  // positions 0..127, enough for the chapter's 102
constexpr double base = 10000.0;
// Which dimensions turn together: (2i, 2i+1) as the chapter's code, or half_split (i, i + H/2) as in
// Hugging Face's Llama (lesson 07). The scores below are the same property either way.
constexpr wai::RopePairing pairing = wai::RopePairing::interleaved;

// The chapter's places: three (query, key) pairs at distance 2, then one at another distance.
const std::pair<int64_t, int64_t> places[] = {{3, 5}, {10, 12}, {100, 102}, {3, 10}};
constexpr int64_t shown_position = 57;  // the chapter's, for the length of a rotated vector

std::string place(const std::pair<int64_t, int64_t>& p) {
    return "(" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
}

// (T, H): the same vector on every row. After rope_rotate, row p is that vector placed at position p.
wai::Tensor at_every_position(const wai::Tensor& vector) {
    const int64_t width = vector.numel();
    wai::Tensor rows({T, width});
    for (int64_t p = 0; p < T; ++p) std::copy_n(vector.data(), width, rows.data() + p * width);
    return rows;
}

double length_of_row(const wai::Tensor& rows, int64_t p) {
    const int64_t width = rows.size(1);
    double total = 0.0;
    for (int64_t c = 0; c < width; ++c) total += double(rows[p * width + c]) * rows[p * width + c];
    return std::sqrt(total);
}

// The chapter's q and k from lessons/data/chapter_rope_vectors.txt: lines "q x0 x1 ..." and "k ...",
// '#' lines are notes. Empty vectors when the file cannot be read (the checks then say so).
struct ChapterVectors {
    std::vector<float> q, k;
};
ChapterVectors read_chapter_vectors(const std::string& path) {
    ChapterVectors vectors;
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
        std::istringstream words(line);
        std::string name;
        words >> name;
        std::vector<float>* target = name == "q" ? &vectors.q : name == "k" ? &vectors.k : nullptr;
        if (target == nullptr) continue;
        for (double x; words >> x;) target->push_back(static_cast<float>(x));
    }
    return vectors;
}

// A score as the chapter prints it, "%+.4f": the check compares these strings, that is the rounding.
std::string printed(double value, const char* format = "%+.4f") {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

bool relatively_close(double a, double b, double relative) { return std::abs(a - b) <= relative * std::abs(b); }

// Step 1. One frequency per pair: θ_i = base^(-2i/H). Pair 0 turns one radian per position, the last
// pair 1/1000 of one: fast pairs tell neighbours apart, slow ones measure long distances.
std::vector<double> show_frequencies() {
    lesson::heading("The frequencies, H = " + std::to_string(H) + ", base " + std::to_string(int64_t(base)));
    const std::vector<double> theta = wai::rope_frequencies(H, base);
    bool chapter_formula = true;
    for (size_t i = 0; i < theta.size(); ++i) {
        const bool interleaved = pairing == wai::RopePairing::interleaved;
        std::printf("  pair %zu (dims %zu, %zu): theta %.6f\n", i, interleaved ? 2 * i : i,
                    interleaved ? 2 * i + 1 : i + size_t(H / 2), theta[i]);
        chapter_formula = chapter_formula && relatively_close(theta[i], std::pow(base, -2.0 * double(i) / H), 1e-12);
    }
    // The chapter's formula at any H and base; its own frequencies only at its H = 8 and base 10,000.
    lesson::check(chapter_formula, "theta_i = " + std::to_string(int64_t(base)) + "^(-2i/H), the chapter's " +
                                       (H == 8 && base == 10000.0 ? "frequencies" : "formula"));
    return theta;
}

// A query vector q and a key vector k (H each), and both placed at every position 0..T-1.
struct Placed {
    wai::Tensor q, k;                  // (H)
    wai::Tensor rotated_q, rotated_k;  // (T, H): row m is q at m, row n is k at n
    wai::Tensor scores;                // (T, T): scores[m, n] = rope(q, m) · rope(k, n)
    double score(int64_t m, int64_t n) const { return double(scores[m * T + n]); }
};

// Step 2. Rotating a pair (a, b) by angle φ gives (a cos φ - b sin φ, a sin φ + b cos φ). The table
// holds cos and sin of p·θ_i for every position p and pair i; rope_rotate turns row p by them.
// Putting q on every row and rotating gives q as it would be seen at each position 0..127; then
// every query position against every key position at once.
Placed rotate_q_and_k(const std::vector<double>& theta) {
    wai::Generator generator(0);
    Placed placed;
    placed.q = wai::Tensor::normal({H}, 0.0f, 1.0f, generator);
    placed.k = wai::Tensor::normal({H}, 0.0f, 1.0f, generator);
    const wai::RopeTable table = wai::make_rope_table(T, theta, pairing);
    placed.rotated_q = wai::rope_rotate(at_every_position(placed.q), table);
    placed.rotated_k = wai::rope_rotate(at_every_position(placed.k), table);
    placed.scores = wai::matmul(placed.rotated_q, placed.rotated_k, false, true);
    return placed;
}

// Step 3. Our q and k come from our own generator, not numpy's, so these are not the chapter's
// -6.3341 and -5.9618. The pattern is what carries over: three equal scores, one different.
// Returns the score at the first place, distance 2.
double check_the_chapters_places(const Placed& placed) {
    lesson::heading("The chapter's check, with our random q and k");
    for (const auto& [m, n] : places)
        std::printf("  query at %3lld, key at %3lld (distance %2lld): score %+.4f\n", static_cast<long long>(m),
                    static_cast<long long>(n), static_cast<long long>(n - m), placed.score(m, n));
    const double distance_2 = placed.score(places[0].first, places[0].second);
    bool same_at_distance_2 = true;
    for (int j = 1; j < 3; ++j)
        same_at_distance_2 &= relatively_close(placed.score(places[j].first, places[j].second), distance_2, 1e-4);
    lesson::check(same_at_distance_2, "a query and key " + std::to_string(places[0].second - places[0].first) +
                                          " apart score the same at " + place(places[0]) + ", " + place(places[1]) +
                                          " and " + place(places[2]));
    lesson::check(std::abs(placed.score(places[3].first, places[3].second) - distance_2) > 1e-3 * std::abs(distance_2),
                  "at " + place(places[3]) + ", " + std::to_string(places[3].second - places[3].first) +
                      " apart, the score is different");
    return distance_2;
}

// Step 4. Not just three spots: the whole diagonal n = m + d of the score matrix holds one number.
// Why: for one pair, rope(q, m) · rope(k, n) = (R(mθ) q)ᵀ R(nθ) k = qᵀ R(-mθ) R(nθ) k = qᵀ R((n-m)θ) k,
// because rotations add their angles and a rotation's transpose turns it back. So the score at
// (m, n) is the unrotated q against k rotated to position n - m.
void check_only_the_distance_counts(const Placed& placed, double distance_2) {
    const int64_t d = places[0].second - places[0].first;
    double diagonal_spread = 0.0;
    for (int64_t m = 0; m + d < T; ++m)
        diagonal_spread = std::max(diagonal_spread, std::abs(placed.score(m, m + d) - distance_2));
    std::printf("  along the whole diagonal n = m + %lld (m = 0..%lld), scores differ from %s by at most %.2g\n",
                static_cast<long long>(d), static_cast<long long>(T - 1 - d), place(places[0]).c_str(), diagonal_spread);
    lesson::check(diagonal_spread <= 1e-4 * std::abs(distance_2),
                  "every query-key pair " + std::to_string(d) + " apart scores the same");

    double relative_score = 0.0;
    for (int64_t c = 0; c < H; ++c) relative_score += double(placed.q[c]) * placed.rotated_k[d * H + c];
    std::printf("  q (not rotated) · k rotated to position %lld: %+.4f\n", static_cast<long long>(d), relative_score);
    lesson::check(relatively_close(relative_score, distance_2, 1e-4),
                  "the score at (m, m + " + std::to_string(d) + ") is q · rope(k, " + std::to_string(d) +
                      "): m has cancelled");
}

// Step 5. A rotation moves a vector without stretching it: RoPE changes the angle between query and
// key, never their lengths. (Values are never rotated; only the scores carry position.)
void check_rotation_keeps_length(const Placed& placed) {
    lesson::heading("Rotation keeps length");
    const double length = length_of_row(at_every_position(placed.q), 0);
    const double length_at_shown = length_of_row(placed.rotated_q, shown_position);
    std::printf("  rotation keeps length: |q| = %.4f, |rope(q, %lld)| = %.4f\n", length,
                static_cast<long long>(shown_position), length_at_shown);
    double worst = 0.0;
    for (int64_t p = 0; p < T; ++p) worst = std::max(worst, std::abs(length_of_row(placed.rotated_q, p) - length) / length);
    lesson::check(worst < 1e-6, "|rope(q, p)| = |q| at every position, to float rounding");
}

// Step 6. The chapter's own vectors. Its numpy code draws q and k from default_rng(0) after X, the
// three projections and the permutation of its first check; lessons/data/make_rope_vectors.py repeats
// those draws once and wrote them to chapter_rope_vectors.txt. Here they go through our rotation
// (the chapter's H = 8, base 10,000, interleaved pairs, whatever this lesson's own H, base and
// pairing are), in float32 as every tensor of the engine, and must give the chapter's printed scores.
void check_the_chapters_own_vectors() {
    const std::string data_path = std::string(WAI_LESSONS_DATA_DIR) + "/chapter_rope_vectors.txt";
    lesson::heading("The chapter's own q and k (" + data_path + ")");
    const ChapterVectors chapter = read_chapter_vectors(data_path);
    const bool read = !chapter.q.empty() && chapter.q.size() == chapter.k.size() && chapter.q.size() % 2 == 0;
    lesson::check(read, "the chapter's q and k are read, of one even length",
                  "q has " + std::to_string(chapter.q.size()) + " numbers, k " + std::to_string(chapter.k.size()) +
                      " (make_rope_vectors.py writes the file)");
    if (!read) return;
    const int64_t chapter_H = static_cast<int64_t>(chapter.q.size());
    const double chapter_base = 10000.0;
    const wai::Tensor chapter_q = wai::Tensor::from_values({chapter_H}, chapter.q);  // (H)
    const wai::Tensor chapter_k = wai::Tensor::from_values({chapter_H}, chapter.k);  // (H)
    const wai::RopeTable chapter_table =
        wai::make_rope_table(T, wai::rope_frequencies(chapter_H, chapter_base), wai::RopePairing::interleaved);
    const wai::Tensor chapter_rotated_q = wai::rope_rotate(at_every_position(chapter_q), chapter_table);  // (T, H)
    const wai::Tensor chapter_rotated_k = wai::rope_rotate(at_every_position(chapter_k), chapter_table);  // (T, H)
    const wai::Tensor chapter_scores = wai::matmul(chapter_rotated_q, chapter_rotated_k, false, true);  // (T, T)
    // What the chapter prints for these places (its output block, under the code), and |q|. These are
    // the claim being checked, not numbers this lesson prints as its own: it prints what it computes.
    const char* chapter_printed[] = {"-6.3341", "-6.3341", "-6.3341", "-5.9618"};
    const char* chapter_length = "4.4482";
    bool all_as_printed = true;
    std::string differing;
    for (int j = 0; j < 4; ++j) {
        const auto [m, n] = places[j];
        const double value = chapter_scores[m * T + n];
        std::printf("  query at %3lld, key at %3lld (distance %2lld): score %+.4f\n", static_cast<long long>(m),
                    static_cast<long long>(n), static_cast<long long>(n - m), value);
        if (printed(value) != chapter_printed[j]) {
            all_as_printed = false;
            differing += " " + place(places[j]) + " gives " + printed(value) + ", printed " + chapter_printed[j] + ";";
        }
    }
    const double chapter_q_length = length_of_row(at_every_position(chapter_q), 0);
    const double chapter_length_at_shown = length_of_row(chapter_rotated_q, shown_position);
    std::printf("  rotation keeps length: |q| = %.4f, |rope(q, %lld)| = %.4f\n", chapter_q_length,
                static_cast<long long>(shown_position), chapter_length_at_shown);
    lesson::check(all_as_printed, "our rotation of the chapter's q and k rounds to each of its four printed scores",
                  differing);
    lesson::check(printed(chapter_q_length, "%.4f") == chapter_length &&
                      printed(chapter_length_at_shown, "%.4f") == chapter_length,
                  "and |q| and |rope(q, " + std::to_string(shown_position) + ")| round to its printed length");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    const std::vector<double> theta = show_frequencies();
    const Placed placed = rotate_q_and_k(theta);
    const double distance_2 = check_the_chapters_places(placed);
    check_only_the_distance_counts(placed, distance_2);
    check_rotation_keeps_length(placed);
    check_the_chapters_own_vectors();
    return lesson::finish("05");
}
