// Lesson 05: RoPE. Rotate each pair of query and key dimensions by position·θ_i; then the score of
// a query at m and a key at n depends only on n - m. The chapter's printed check, recomputed with
// our rotation (H = 8, base 10000): equal scores at (3, 5), (10, 12), (100, 102), a different one
// at (3, 10), and a rotation that keeps every vector's length.
// Then the chapter's own q and k (drawn by its numpy code, shipped in lessons/data/) through the same
// rotation, which must give its printed scores; last, RoPE's and attention's backward gradchecked.
// Mirrors "RoPE: rotate, so only the difference counts" (Where Am I?) and "Worked example: RoPE,
// rotating instead of adding" (LLM Mastery 23). Leaves out the course's exercise (lesson 06),
// the pairing convention (lesson 07) and the choice of base (lesson 10).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/fast/fast_ops.hpp"
#include "autograd/gradcheck.hpp"
#include "lessons/lesson.hpp"
#include "nn/attention.hpp"
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

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);

    // One frequency per pair: θ_i = base^(-2i/H). Pair 0 turns one radian per position, the last
    // pair 1/1000 of one: fast pairs tell neighbours apart, slow ones measure long distances.
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

    // Rotating a pair (a, b) by angle φ gives (a cos φ - b sin φ, a sin φ + b cos φ). The table holds
    // cos and sin of p·θ_i for every position p and pair i; rope_rotate turns row p by them.
    // Putting q on every row and rotating gives q as it would be seen at each position 0..127.
    wai::Generator generator(0);
    const wai::Tensor q = wai::Tensor::normal({H}, 0.0f, 1.0f, generator);  // (H)
    const wai::Tensor k = wai::Tensor::normal({H}, 0.0f, 1.0f, generator);  // (H)
    const wai::RopeTable table = wai::make_rope_table(T, theta, pairing);
    const wai::Tensor rotated_q = wai::rope_rotate(at_every_position(q), table);  // (T, H): row m is q at m
    const wai::Tensor rotated_k = wai::rope_rotate(at_every_position(k), table);  // (T, H): row n is k at n

    // Every query position against every key position at once: scores[m, n] = rope(q, m) · rope(k, n).
    const wai::Tensor scores = wai::matmul(rotated_q, rotated_k, false, true);  // (T, T)
    auto score = [&](int64_t m, int64_t n) { return double(scores[m * T + n]); };

    // Our q and k come from our own generator, not numpy's, so these are not the chapter's
    // -6.3341 and -5.9618. The pattern is what carries over: three equal scores, one different.
    // (The chapter's own q and k, and its very numbers, are at the end.)
    lesson::heading("The chapter's check, with our random q and k");
    // The chapter's places: three pairs at distance 2, then one at another distance.
    const std::pair<int64_t, int64_t> places[] = {{3, 5}, {10, 12}, {100, 102}, {3, 10}};
    auto place = [](const std::pair<int64_t, int64_t>& p) {
        return "(" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
    };
    for (const auto& [m, n] : places)
        std::printf("  query at %3lld, key at %3lld (distance %2lld): score %+.4f\n", static_cast<long long>(m),
                    static_cast<long long>(n), static_cast<long long>(n - m), score(m, n));
    const double distance_2 = score(places[0].first, places[0].second);
    bool same_at_distance_2 = true;
    for (int j = 1; j < 3; ++j)
        same_at_distance_2 &= relatively_close(score(places[j].first, places[j].second), distance_2, 1e-4);
    lesson::check(same_at_distance_2, "a query and key " + std::to_string(places[0].second - places[0].first) +
                                          " apart score the same at " + place(places[0]) + ", " + place(places[1]) +
                                          " and " + place(places[2]));
    lesson::check(std::abs(score(places[3].first, places[3].second) - distance_2) > 1e-3 * std::abs(distance_2),
                  "at " + place(places[3]) + ", " + std::to_string(places[3].second - places[3].first) +
                      " apart, the score is different");

    // Not just three spots: the whole diagonal n = m + d of the score matrix holds one number.
    const int64_t d = places[0].second - places[0].first;
    double diagonal_spread = 0.0;
    for (int64_t m = 0; m + d < T; ++m)
        diagonal_spread = std::max(diagonal_spread, std::abs(score(m, m + d) - distance_2));
    std::printf("  along the whole diagonal n = m + %lld (m = 0..%lld), scores differ from %s by at most %.2g\n",
                static_cast<long long>(d), static_cast<long long>(T - 1 - d), place(places[0]).c_str(), diagonal_spread);
    lesson::check(diagonal_spread <= 1e-4 * std::abs(distance_2),
                  "every query-key pair " + std::to_string(d) + " apart scores the same");

    // Why. For one pair, rope(q, m) · rope(k, n) = (R(mθ) q)ᵀ R(nθ) k = qᵀ R(-mθ) R(nθ) k = qᵀ R((n-m)θ) k,
    // because rotations add their angles and a rotation's transpose turns it back. So the score at
    // (m, n) is the unrotated q against k rotated to position n - m.
    double relative_score = 0.0;
    for (int64_t c = 0; c < H; ++c) relative_score += double(q[c]) * rotated_k[d * H + c];
    std::printf("  q (not rotated) · k rotated to position %lld: %+.4f\n", static_cast<long long>(d), relative_score);
    lesson::check(relatively_close(relative_score, distance_2, 1e-4),
                  "the score at (m, m + " + std::to_string(d) + ") is q · rope(k, " + std::to_string(d) +
                      "): m has cancelled");

    // A rotation moves a vector without stretching it: RoPE changes the angle between query and
    // key, never their lengths. (Values are never rotated; only the scores carry position.)
    lesson::heading("Rotation keeps length");
    constexpr int64_t shown_position = 57;  // the chapter's
    const double length = length_of_row(at_every_position(q), 0);
    const double length_at_shown = length_of_row(rotated_q, shown_position);
    std::printf("  rotation keeps length: |q| = %.4f, |rope(q, %lld)| = %.4f\n", length,
                static_cast<long long>(shown_position), length_at_shown);
    double worst = 0.0;
    for (int64_t p = 0; p < T; ++p) worst = std::max(worst, std::abs(length_of_row(rotated_q, p) - length) / length);
    lesson::check(worst < 1e-6, "|rope(q, p)| = |q| at every position, to float rounding");

    // The chapter's own vectors. Its numpy code draws q and k from default_rng(0) after X, the three
    // projections and the permutation of its first check; lessons/data/make_rope_vectors.py repeats
    // those draws once and wrote them to chapter_rope_vectors.txt. Here they go through our rotation
    // (the chapter's H = 8, base 10,000, interleaved pairs, whatever this lesson's own H, base and
    // pairing are), in float32 as every tensor of the engine, and must give the chapter's printed scores.
    const std::string data_path = std::string(WAI_LESSONS_DATA_DIR) + "/chapter_rope_vectors.txt";
    lesson::heading("The chapter's own q and k (" + data_path + ")");
    const ChapterVectors chapter = read_chapter_vectors(data_path);
    const bool read = !chapter.q.empty() && chapter.q.size() == chapter.k.size() && chapter.q.size() % 2 == 0;
    lesson::check(read, "the chapter's q and k are read, of one even length",
                  "q has " + std::to_string(chapter.q.size()) + " numbers, k " + std::to_string(chapter.k.size()) +
                      " (make_rope_vectors.py writes the file)");
    if (read) {
        const int64_t chapter_H = static_cast<int64_t>(chapter.q.size());
        const double chapter_base = 10000.0;
        const wai::Tensor chapter_q = wai::Tensor::from_values({chapter_H}, chapter.q);
        const wai::Tensor chapter_k = wai::Tensor::from_values({chapter_H}, chapter.k);
        const wai::RopeTable chapter_table = wai::make_rope_table(
            T, wai::rope_frequencies(chapter_H, chapter_base), wai::RopePairing::interleaved);
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

    // The backward of the rotation is the rotation backwards (a rotation's transpose is its inverse),
    // and attention's backward is made of its ops' backwards. Both are checked here the way every op
    // of the engine is: the full Jacobian from backward against central differences of the forward.
    lesson::heading("The backward: RoPE's, and attention's through RoPE, against finite differences");
    {
        const int64_t T = 6;
        wai::Generator generator(5);
        const wai::RopeTable table = wai::make_rope_table(T, wai::rope_frequencies(H, base), wai::RopePairing::interleaved);
        auto leaf = [&] { return wai::Value(wai::Tensor::normal(wai::Shape{T, H}, 0.0f, 1.0f, generator), true); };  // (T, H)
        const std::vector<wai::Value> qkv{leaf(), leaf(), leaf()};
        const wai::GradcheckResult rope_check =
            wai::gradcheck([&](const std::vector<wai::Value>& in) { return wai::rope(in[0], table); }, {qkv[0]});
        std::printf("  rope (T, H) = (%lld, %lld): %lld Jacobian entries, largest |backward - finite difference| %.1e\n",
                    static_cast<long long>(T), static_cast<long long>(H), static_cast<long long>(rope_check.entries),
                    rope_check.max_abs_error);
        lesson::check(rope_check.passed, "RoPE's backward, the rotation backwards, matches finite differences", rope_check.worst);
        const float factor = 1.0f / std::sqrt(static_cast<float>(H));
        auto rotated_attention = [&](const std::vector<wai::Value>& in) {  // softmax(rope(q) rope(k)^T / sqrt(H), causal) v
            return wai::attention(wai::rope(in[0], table), wai::rope(in[1], table), in[2], wai::Value(), factor);
        };
        const wai::GradcheckResult attention_check = wai::gradcheck(rotated_attention, qkv);
        std::printf("  attention through RoPE, the chain of plain ops: %lld entries, largest error %.1e\n",
                    static_cast<long long>(attention_check.entries), attention_check.max_abs_error);
        lesson::check(attention_check.passed, "attention's backward through RoPE matches finite differences",
                      attention_check.worst);
        // The fused kernel the fast path uses gives the plain chain's gradients.
        double largest_difference = 0.0;
        for (size_t input = 0; input < qkv.size(); ++input) {
            std::vector<wai::Value> plain, fused;
            for (const wai::Value& v : qkv) {
                plain.push_back(wai::Value(v.value(), true));
                fused.push_back(wai::Value(v.value(), true));
            }
            wai::sum(rotated_attention(plain)).backward();
            wai::sum(wai::fast::causal_attention(wai::rope(fused[0], table), wai::rope(fused[1], table), fused[2],
                                                 wai::Value(), factor))
                .backward();
            for (int64_t i = 0; i < T * H; ++i)
                largest_difference = std::max(largest_difference,
                                              std::abs(double(plain[input].grad()[i]) - double(fused[input].grad()[i])));
        }
        std::printf("  the fused attention kernel against the plain chain: largest gradient difference %.1e\n",
                    largest_difference);
        lesson::check(largest_difference <= 1e-5, "the fast fused kernel's gradients are the plain chain's, within float rounding");
    }

    return lesson::finish("05");
}
