// The blog's widget (web/page_widget.hpp): the engine's rope_rotate, sinusoid_table and alibi_bias on
// the chapter's q and k.
#include "web/page_widget.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "positional/alibi.hpp"
#include "positional/rope.hpp"
#include "positional/sinusoid.hpp"
#include "tensor/elementwise.hpp"
#include "web/page_json.hpp"

namespace page {
namespace {

constexpr int widget_positions = 256;  // the sliders' range: 0..255
constexpr double widget_base = 10000.0;

// The chapter's q and k: lines "q x0 x1 ..." and "k ..." ('#' lines are notes), as lesson 05 reads them.
struct ChapterVectors {
    std::vector<float> q, k;
};
const ChapterVectors& chapter_vectors() {
    static const ChapterVectors vectors = [] {
        ChapterVectors read;
        std::ifstream file(chapter_vectors_path);
        for (std::string line; std::getline(file, line);) {
            std::istringstream words(line);
            std::string name;
            words >> name;
            std::vector<float>* target = name == "q" ? &read.q : name == "k" ? &read.k : nullptr;
            if (target == nullptr) continue;
            for (double x; words >> x;) target->push_back(static_cast<float>(x));
        }
        if (read.q.empty() || read.q.size() != read.k.size() || read.q.size() % 2 != 0)
            throw std::runtime_error(std::string(chapter_vectors_path) + " does not hold a q and a k of one even length");
        return read;
    }();
    return vectors;
}

// (P, H): the vector on every row; after rope_rotate, row p is the vector at position p.
wai::Tensor at_every_position(const std::vector<float>& vector, int64_t P) {
    const int64_t H = static_cast<int64_t>(vector.size());
    wai::Tensor rows({P, H});
    for (int64_t p = 0; p < P; ++p) std::copy(vector.begin(), vector.end(), rows.data() + p * H);
    return rows;
}

double row_dot(const wai::Tensor& a, int64_t i, const wai::Tensor& b, int64_t j) {
    const int64_t H = a.size(1);
    double total = 0.0;
    for (int64_t c = 0; c < H; ++c) total += double(a[i * H + c]) * b[j * H + c];
    return total;
}

// The chapter's q and k placed at every position 0..P-1, as they are and through each scheme that
// acts on them: made once, on the widget's first call (they depend on no slider).
struct PlacedVectors {
    wai::Tensor q, k;                  // (P, H): row p is the vector, unchanged
    wai::Tensor rotated_q, rotated_k;  // (P, H): row p is the vector rotated to position p
    wai::Tensor q_plus, k_plus;        // (P, H): row p is the vector plus sinusoid row p
};
const PlacedVectors& placed_vectors() {
    static const PlacedVectors placed = [] {
        const ChapterVectors& chapter = chapter_vectors();
        const int64_t H = static_cast<int64_t>(chapter.q.size()), P = widget_positions;
        PlacedVectors v;
        v.q = at_every_position(chapter.q, P);
        v.k = at_every_position(chapter.k, P);
        const wai::RopeTable table =
            wai::make_rope_table(P, wai::rope_frequencies(H, widget_base), wai::RopePairing::interleaved);
        v.rotated_q = wai::rope_rotate(v.q, table);
        v.rotated_k = wai::rope_rotate(v.k, table);
        const wai::Tensor pe = wai::sinusoid_table(P, H);  // (P, H)
        v.q_plus = wai::add(v.q, pe);
        v.k_plus = wai::add(v.k, pe);
        return v;
    }();
    return placed;
}

}  // namespace

// The widget's four scores for a query at m and a key at n: q·k with no position; RoPE; sinusoids
// added to both; ALiBi's penalty -slope·|m - n| (a causal model sees only keys n <= m: the widget
// shows the penalty the pair would get with the later one as the query).
std::string position_scores(int m, int n, double slope) {
    try {
        if (m < 0 || n < 0 || m >= widget_positions || n >= widget_positions)
            return error_text("positions must be from 0 to " + std::to_string(widget_positions - 1) + ", got " +
                              std::to_string(m) + " and " + std::to_string(n));
        if (!(slope >= 0.0) || !std::isfinite(slope)) return error_text("the ALiBi slope must be 0 or more");
        const PlacedVectors& v = placed_vectors();
        const int64_t later = std::max(m, n), earlier = std::min(m, n), L = later + 1;
        const wai::Tensor bias = wai::alibi_bias({slope}, L);  // (1, L, L): row = query, column = key <= query
        const double dot = row_dot(v.q, m, v.k, n);
        return json{{"m", m},
                    {"n", n},
                    {"distance", n - m},
                    {"dot", dot},
                    {"rope", row_dot(v.rotated_q, m, v.rotated_k, n)},
                    {"sinusoid", row_dot(v.q_plus, m, v.k_plus, n)},
                    {"alibi", dot + double(bias[later * L + earlier])},
                    {"head_dim", v.q.size(1)},
                    {"base", widget_base},
                    {"positions", widget_positions}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

// The rotation itself, for the widget's drawing: q at m and k at n as the engine rotates them
// (rope_rotate, interleaved pairs (0, 1), (2, 3), ...), pair by pair: {"pairs": [{"theta", "q": [x, y]
// unrotated, "k": [x, y], "q_turned": [x, y] at m, "k_turned": [x, y] at n, "dot": the pair's share of the
// score}], "rope": the RoPE score, the sum of the pairs' dots}.
std::string rotation_pairs(int m, int n) {
    try {
        if (m < 0 || n < 0 || m >= widget_positions || n >= widget_positions)
            return error_text("positions must be from 0 to " + std::to_string(widget_positions - 1));
        const PlacedVectors& v = placed_vectors();
        const int64_t H = v.q.size(1);
        const std::vector<double> theta = wai::rope_frequencies(H, widget_base);
        json pairs = json::array();
        double total = 0;
        for (int64_t i = 0; i < H / 2; ++i) {
            const auto at = [&](const wai::Tensor& t, int64_t row) {
                return std::vector<double>{t[row * H + 2 * i], t[row * H + 2 * i + 1]};
            };
            const std::vector<double> q = at(v.rotated_q, m), k = at(v.rotated_k, n);
            const double dot = q[0] * k[0] + q[1] * k[1];
            total += dot;
            pairs.push_back({{"theta", theta[i]}, {"q", at(v.q, m)}, {"k", at(v.k, n)}, {"q_turned", q},
                             {"k_turned", k}, {"dot", dot}});
        }
        return json{{"m", m}, {"n", n}, {"pairs", pairs}, {"rope", total}}.dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

}  // namespace page
