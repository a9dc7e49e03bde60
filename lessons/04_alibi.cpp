// Lesson 04: ALiBi, a penalty on the attention score that grows with distance. The penalty matrix
// for a short sequence, the geometric slopes 1/2 ... 1/256 for 8 heads, and why a penalty alone
// cannot single out "exactly three back": with equal content scores, its attention weights fall
// with every step of distance, for the steep slope 1/2 and the gentle 1/16 alike.
// Mirrors "Penalizing distance: ALiBi" (Where Am I?). Leaves out what content scores add on top
// of the penalty in a trained model (the chapter's experiment, lesson 08) and T5's learned biases.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "positional/alibi.hpp"

namespace {

// A slope as the chapter writes it: 1/2, 1/16, ... when it is one over a whole number, else "0.3".
std::string slope_name(double slope) {
    const double inverse = 1.0 / slope;
    char text[32];
    if (std::abs(inverse - std::round(inverse)) < 1e-9) std::snprintf(text, sizeof text, "1/%.0f", inverse);
    else std::snprintf(text, sizeof text, "%g", slope);
    return text;
}

// Row m of softmax(penalty) under the causal mask, read by distance: weight[d] is key m - d.
// The content scores are all equal (zero), so the penalty is the only thing that differs.
std::vector<double> weights_by_distance(double slope, int64_t T) {
    const wai::Tensor penalty = wai::alibi_bias({slope}, T).reshaped({T, T});                // (T, T)
    const wai::Tensor weights = wai::softmax(wai::Value(penalty), /*causal=*/true).value();  // (T, T)
    const int64_t m = T - 1;
    std::vector<double> by_distance(T);
    for (int64_t d = 0; d < T; ++d) by_distance[d] = weights[m * T + (m - d)];
    return by_distance;
}

// The penalty matrices are printed for a short sequence; the weights are read at the training length.
constexpr int64_t small_T = 6;
// The last query of a training-length sequence (T = 32): its weights by distance, steps 4 and 5.
constexpr int64_t T = 32;
constexpr double steep = 0.5, gentle = 0.0625;  // the chapter's two, for its one-head model

// Step 1. For a query at m and a key at n <= m, ALiBi subtracts slope·(m - n) from their score.
// Nothing is added to the tokens and nothing is learned: a fixed matrix joins the scores just before
// the softmax (nn/attention.cpp adds score_bias, then the causal mask hides the keys above the diagonal).
void show_the_penalty() {
    constexpr double shown_slope = 0.5;
    lesson::heading("The penalty for one head, slope " + slope_name(shown_slope) + ", T = " + std::to_string(small_T) +
                    " (row: query m, column: key n)");
    const wai::Tensor penalty = wai::alibi_bias({shown_slope}, small_T);  // (NH, T, T) = (1, 6, 6)
    for (int64_t m = 0; m < small_T; ++m) {
        std::printf("  m = %lld ", static_cast<long long>(m));
        for (int64_t n = 0; n < small_T; ++n) {
            if (n <= m) std::printf(" %6.2f", penalty[m * small_T + n] + 0.0f);  // + 0 prints the diagonal's -0 as 0
            else std::printf(" %6s", "masked");
        }
        std::printf("\n");
    }
    bool proportional = true;
    for (int64_t m = 0; m < small_T; ++m)
        for (int64_t n = 0; n <= m; ++n)
            proportional = proportional && penalty[m * small_T + n] == float(-shown_slope * double(m - n));
    lesson::check(proportional, "the penalty is -slope·(m - n): zero on the diagonal, growing with distance");
}

// Step 2. Every head gets its own slope, a geometric sequence 2^(-8k/NH): with 8 heads, 1/2 to 1/256.
// Steep heads look nearby, gentle heads look far. Returns the slopes.
std::vector<double> show_the_slopes(int64_t heads) {
    lesson::heading("The slopes for " + std::to_string(heads) + " heads");
    const std::vector<double> slopes = wai::alibi_slopes(heads);
    // Geometric: each slope is the first times the one before, and the last is 2^-8 = 1/256 (for 8
    // heads: 1/2, 1/4, ..., 1/256, every one a power of two and so exact in a double).
    bool geometric_sequence = std::abs(slopes.back() - 1.0 / 256.0) < 1e-15;
    for (size_t k = 0; k < slopes.size(); ++k) {
        std::printf("  head %zu: slope %.8f = %s\n", k, slopes[k], slope_name(slopes[k]).c_str());
        if (k > 0) geometric_sequence &= std::abs(slopes[k] / slopes[k - 1] - slopes[0]) < 1e-12;
    }
    lesson::check(geometric_sequence, "the " + std::to_string(heads) + " slopes are a geometric sequence, " +
                                          slope_name(slopes[0]) + ", " +
                                          (heads > 1 ? slope_name(slopes[1]) + ", ..., " : std::string()) + "1/256");
    if (heads == 8) {  // the chapter's own list: every slope exactly one over a power of two
        bool powers_of_two = true;
        for (size_t k = 0; k < slopes.size(); ++k)
            powers_of_two = powers_of_two && slopes[k] == std::ldexp(1.0, -static_cast<int>(k + 1));
        lesson::check(powers_of_two, "the 8 slopes are exactly 1/2, 1/4, ..., 1/256");
    }
    return slopes;
}

// Step 3. The scheme as the model uses it: one (T, T) slab per head, each with its own slope.
void check_one_slab_per_head(const std::vector<double>& slopes) {
    const int64_t heads = static_cast<int64_t>(slopes.size());
    const wai::AlibiPositions geometric;
    const wai::Tensor per_head = geometric.score_bias(heads, small_T).value();  // (NH, T, T) = (8, 6, 6)
    const int64_t query = small_T - 1, key = query - 3;
    bool slab_per_head = per_head.shape() == wai::Shape({heads, small_T, small_T});
    for (int64_t h = 0; h < heads; ++h)
        slab_per_head = slab_per_head && per_head[(h * small_T + query) * small_T + key] == float(-(query - key) * slopes[h]);
    std::printf("  score_bias(%lld heads, T = %lld) has shape %s; query %lld, key %lld gets -%lld·slope in each head\n",
                static_cast<long long>(heads), static_cast<long long>(small_T), per_head.shape().str().c_str(),
                static_cast<long long>(query), static_cast<long long>(key), static_cast<long long>(query - key));
    lesson::check(slab_per_head, "the model's score bias holds one penalty matrix per head, each with its slope");
}

// Step 4. The limitation. Take the last query of a training-length sequence (T = 32) and make every
// content score equal, so only the penalty speaks. Its softmax gives weight proportional to
// exp(-slope·d) at distance d: each step back multiplies the weight by exp(-slope) < 1. So
// distance 3 always gets less than distance 2, which gets less than 1, which gets less than 0.
// The penalty can make attention prefer recent tokens; it cannot point at one distance. To
// copy the token three back ("lag"), the content scores must overcome the penalty, and a
// penalty that differs little between 2, 3 and 4 (the gentle slope) helps little in telling them
// apart. In the chapter's table: lag at 94% with the steep slope, 70% with the gentle one.
void check_the_penalty_alone(double slope) {
    lesson::heading("Penalty alone, slope " + slope_name(slope) +
                    ": weights of the last query (T = " + std::to_string(T) + ")");
    const std::vector<double> weight = weights_by_distance(slope, T);
    for (int64_t d : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}, T - 1})
        std::printf("  distance %2lld: weight %.4g\n", static_cast<long long>(d), weight[d]);
    // The weights are float32. Far enough back, exp(-slope·d) drops below float32's smallest
    // normal number (about 1.2e-38, e^-87: past distance 172 for slope 1/2, in any longer row)
    // and the softmax can only round it to a subnormal or to 0, where neither claim below can be
    // seen. The claims are checked where the weight is a normal float32, which at T = 32 is everywhere.
    const double smallest_normal = std::numeric_limits<float>::min();
    int64_t reach = 0;  // the farthest distance whose weight, and every nearer one's, is a normal float32
    while (reach + 1 < T && weight[reach + 1] >= smallest_normal) ++reach;
    const std::string how_far = reach == T - 1 ? std::string("all the way back")
                                               : "as far back as the weight is a normal float32 (distance " +
                                                     std::to_string(reach) + ")";
    if (reach < T - 1)
        std::printf("  past distance %lld the weight is below float32's smallest normal number, %.2g: it rounds to "
                    "a subnormal or to 0\n", static_cast<long long>(reach), smallest_normal);
    int64_t not_falling = 0, worst_ratio_at = 1;  // the first distance whose weight does not fall; the worst ratio's
    double worst_ratio_error = 0.0;
    for (int64_t d = 1; d <= reach; ++d) {
        if (not_falling == 0 && !(weight[d] < weight[d - 1])) not_falling = d;
        const double ratio_error = std::abs(weight[d] / weight[d - 1] - std::exp(-slope));
        if (ratio_error > worst_ratio_error) worst_ratio_error = ratio_error, worst_ratio_at = d;
    }
    const int64_t favourite = std::max_element(weight.begin(), weight.end()) - weight.begin();
    std::printf("  the most weight goes to distance %lld\n", static_cast<long long>(favourite));
    char rise[96] = "", ratio[128];
    if (not_falling > 0)
        std::snprintf(rise, sizeof rise, "distance %lld has %.4g, distance %lld had %.4g",
                      static_cast<long long>(not_falling), weight[not_falling],
                      static_cast<long long>(not_falling - 1), weight[not_falling - 1]);
    std::snprintf(ratio, sizeof ratio, "at distance %lld it is %.6g, exp(-slope) = %.6g, apart by more than 1e-4",
                  static_cast<long long>(worst_ratio_at), weight[worst_ratio_at] / weight[worst_ratio_at - 1],
                  std::exp(-slope));
    lesson::check(not_falling == 0, "the weight falls with every step of distance, " + how_far, rise);
    char near[96];
    std::snprintf(near, sizeof near, "distance 3 has %.4g, distance 2 %.4g, distance 1 %.4g", weight[3], weight[2],
                  weight[1]);
    lesson::check(weight[3] < weight[2] && weight[3] < weight[1], "distance 3 gets less than distance 1 or 2", near);
    std::printf("  distance 3 over distance 2: %.4f; exp(-slope) = %.4f\n", weight[3] / weight[2],
                std::exp(-slope));
    lesson::check(worst_ratio_error < 1e-4, "each step back multiplies the weight by exp(-slope), " +
                                                (reach == T - 1 ? std::string("at every distance") : how_far),
                  ratio);
}

// Step 5. The steep slope's flip side, as the chapter says: its heads effectively ignore distant tokens.
// "Distant" is the farthest a training sequence of 32 reaches, 31 back, in a row of any length T:
// a longer row also has tokens much farther back, which even a gentle slope all but ignores.
void check_far_tokens() {
    const int64_t far = std::min<int64_t>(31, T - 1);
    const double steep_far = weights_by_distance(steep, T)[far], gentle_far = weights_by_distance(gentle, T)[far];
    std::printf("\n  weight at distance %lld (T = %lld): %.2g with slope %s, %.2g with slope %s\n",
                static_cast<long long>(far), static_cast<long long>(T), steep_far, slope_name(steep).c_str(), gentle_far,
                slope_name(gentle).c_str());
    lesson::check(steep_far < 1e-6 && gentle_far > 0.003, "at distance " + std::to_string(far) +
                                                              ", a steep head all but ignores the token; a gentle one does not");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    show_the_penalty();
    const std::vector<double> slopes = show_the_slopes(8);
    check_one_slab_per_head(slopes);
    for (double slope : {steep, gentle}) check_the_penalty_alone(slope);
    check_far_tokens();
    return lesson::finish("04");
}
