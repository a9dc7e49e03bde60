// Tests of test-time context extension for RoPE, beyond the chapter: the methods' formulas (position
// interpolation, NTK-aware scaling, YaRN as its authors' code computes it, and yarn-paper, the ramp
// the paper prints), their spec, and their use in a run. Hugging Face's own numbers for PI, NTK and
// YaRN are held in tests/test_golden.cpp.
// Leaves out accuracy after extending (make experiment-extension measures it) and T5's bias
// (tests/test_t5_bias.cpp).
#include "tests/catch.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "positional/context_extension.hpp"
#include "positional/ntk_scaling.hpp"
#include "positional/position_interpolation.hpp"
#include "positional/rope.hpp"
#include "positional/yarn.hpp"
#include "positional/yarn_paper.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using wai::testing::invalid_argument_message;

namespace {

// A run small enough for a test: 2 steps of a width-8, one-layer model.
RunConfig tiny_run(const std::string& task, const std::string& scheme) {
    RunConfig config;
    config.task = task, config.scheme = scheme;
    config.steps = 2, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 2;
    return config;
}

}  // namespace

// ---- position interpolation ---------------------------------------------------------------------

TEST_CASE("position interpolation at s = 1 is plain RoPE; at s it divides every frequency by s", "[extension]") {
    const std::vector<double> theta = rope_frequencies(64, 10000.0);
    CHECK(position_interpolation(theta, 1.0) == theta);
    const std::vector<double> squeezed = position_interpolation(theta, 4.0);
    REQUIRE(squeezed.size() == theta.size());
    for (size_t i = 0; i < theta.size(); ++i) CHECK(squeezed[i] == theta[i] / 4.0);
}

TEST_CASE("position interpolation: position s*m is rotated exactly as plain RoPE rotates position m", "[extension]") {
    // m -> m/s is the method as the paper states it; dividing the frequencies is how it is applied.
    const int64_t H = 8, s = 4, T = 8 * s;
    const std::vector<double> theta = rope_frequencies(H, 10000.0);
    const Tensor rows = repeated_rows(random_tensor(Shape{H}, 1), T);
    const Tensor plain = rope_rotate(rows, make_rope_table(T, theta, RopePairing::interleaved));
    const Tensor interpolated = rope_rotate(rows, make_rope_table(T, position_interpolation(theta, s), RopePairing::interleaved));
    for (int64_t m = 0; m < T / s; ++m)
        for (int64_t c = 0; c < H; ++c) CHECK(interpolated[(s * m) * H + c] == Approx(plain[m * H + c]).margin(1e-5));
}

// ---- NTK-aware scaling --------------------------------------------------------------------------

TEST_CASE("NTK-aware scaling: base * s^(H/(H-2)); pair 0 unchanged, the last pair divided by exactly s", "[extension]") {
    CHECK(ntk_scaled_base(10000.0, 64, 1.0) == 10000.0);
    CHECK(ntk_scaled_base(10000.0, 64, 4.0) == Approx(10000.0 * std::pow(4.0, 64.0 / 62.0)).epsilon(1e-12));
    const double s = 8.0;
    const std::vector<double> theta = rope_frequencies(64, 10000.0);
    const std::vector<double> scaled = rope_frequencies(64, ntk_scaled_base(10000.0, 64, s));
    CHECK(scaled.front() == 1.0);
    CHECK(theta.front() == 1.0);
    CHECK(scaled.back() == Approx(theta.back() / s).epsilon(1e-12));
    // Between them, pair i is divided by s^(2i/(H-2)): more for slower pairs, never more than s.
    for (size_t i = 1; i < theta.size(); ++i) {
        INFO("pair " << i);
        CHECK(theta[i] / scaled[i] == Approx(std::pow(s, 2.0 * i / 62.0)).epsilon(1e-10));
        CHECK(theta[i] / scaled[i] > theta[i - 1] / scaled[i - 1]);
    }
}

// ---- YaRN, as its authors' code and Hugging Face compute it ------------------------------------------

TEST_CASE("YaRN's correction dimension is the fractional pair that turns b times within L", "[extension]") {
    // theta_i = base^(-2i/H) turns L * theta_i / (2 pi) times within L; at i = d(b) that is exactly b.
    for (const auto& [H, base, L] : {std::tuple{int64_t{64}, 10000.0, int64_t{32}}, std::tuple{int64_t{128}, 10000.0, int64_t{4096}},
                                     std::tuple{int64_t{64}, 1000000.0, int64_t{32}}})
        for (double b : {1.0, 32.0, 0.25}) {
            INFO("H " << H << ", base " << base << ", L " << L << ", b " << b);
            const double d = yarn_correction_dim(b, H, base, L);
            CHECK(static_cast<double>(L) * std::pow(base, -2.0 * d / static_cast<double>(H)) / (2.0 * std::numbers::pi) ==
                  Approx(b).epsilon(1e-12));
        }
}

TEST_CASE("YaRN at the experiment's scale (H = 64, L = 32): pair 0 kept whole, a ramp over the next pairs", "[extension]") {
    // Base 10,000: d(32) = -6.39 and d(1) = 5.66, so the ramp runs over pairs 0 .. 6: pair i keeps
    // 1 - i/6 of its frequency. Base 1,000,000: d(1) = 3.77, pairs 0 .. 4, 1 - i/4. Neither depends on s.
    for (const auto& [base, high] : {std::tuple{10000.0, 6.0}, std::tuple{1000000.0, 4.0}}) {
        INFO("base " << base);
        const YarnCorrectionRange range = yarn_correction_range(64, base, 32);
        CHECK(range.low == 0.0);
        CHECK(range.high == high);
        const std::vector<double> kept = yarn_kept_fractions(64, base, 32);
        REQUIRE(kept.size() == 32);
        for (size_t i = 0; i < kept.size(); ++i) {
            INFO("pair " << i);
            CHECK(kept[i] == Approx(std::max(1.0 - static_cast<double>(i) / high, 0.0)).margin(1e-15));
        }
        const std::vector<double> theta = rope_frequencies(64, base);
        for (double s : {2.0, 16.0}) {
            const std::vector<double> blended = yarn_frequencies(64, base, s, 32);
            CHECK(blended[0] == theta[0]);
            for (size_t i = 1; i < theta.size(); ++i)
                CHECK(blended[i] == Approx(theta[i] / s * (1.0 - kept[i]) + theta[i] * kept[i]).epsilon(1e-14));
            CHECK(blended[static_cast<size_t>(high)] == Approx(theta[static_cast<size_t>(high)] / s).epsilon(1e-14));
        }
    }
}

TEST_CASE("YaRN at a LLaMA's scale keeps the 21 fastest pairs and interpolates the 18 slowest", "[extension]") {
    // H = 128, base 10,000, trained on L = 4096: d(32) = 20.94 and d(1) = 45.03, so pairs 0 .. 20
    // keep their frequency, 46 .. 63 are divided by s, and the 25 between are blended.
    const YarnCorrectionRange range = yarn_correction_range(128, 10000.0, 4096);
    CHECK(range.low == 20.0);
    CHECK(range.high == 46.0);
    const double s = 8.0;
    const std::vector<double> theta = rope_frequencies(128, 10000.0);
    const std::vector<double> blended = yarn_frequencies(128, 10000.0, s, 4096);
    int untouched = 0, interpolated = 0, between = 0;
    for (size_t i = 0; i < theta.size(); ++i) {
        INFO("pair " << i);
        if (blended[i] == theta[i]) ++untouched;
        else if (std::abs(blended[i] / (theta[i] / s) - 1.0) < 1e-12) ++interpolated;
        else {
            const double kept = 1.0 - (static_cast<double>(i) - 20.0) / 26.0;
            CHECK(blended[i] == Approx(theta[i] / s * (1.0 - kept) + theta[i] * kept).epsilon(1e-12));
            ++between;
        }
    }
    CHECK(untouched == 21);
    CHECK(between == 25);
    CHECK(interpolated == 18);
}

TEST_CASE("YaRN's correction range: low at least 0, high at most H - 1, nudged when its ends meet", "[extension]") {
    // L = 6 < 2 pi: even pair 0 turns less than once, d(1) = -0.16 rounds up to 0 = low, and the
    // ramp's end is moved to 0.001: pair 0 kept, every other pair interpolated.
    const YarnCorrectionRange meet = yarn_correction_range(64, 10000.0, 6);
    CHECK(meet.low == 0.0);
    CHECK(meet.high == 0.001);
    const std::vector<double> kept = yarn_kept_fractions(64, 10000.0, 6);
    CHECK(kept[0] == 1.0);
    for (size_t i = 1; i < kept.size(); ++i) CHECK(kept[i] == 0.0);
    // L = 4: d(1) = -1.57 rounds up to -1, left below low as the reference code leaves it: the ramp
    // (i - 0) / (-1 - 0) is never above 0, and every pair keeps its frequency.
    CHECK(yarn_correction_range(64, 10000.0, 4).high == -1.0);
    for (double k : yarn_kept_fractions(64, 10000.0, 4)) CHECK(k == 1.0);
    // A base so small that d(1) is past the last pair: high stops at H - 1 = 15, beyond pair 7.
    CHECK(yarn_correction_range(16, 2.0, 4096).high == 15.0);
    CHECK_THROWS_AS(yarn_correction_range(64, 10000.0, 0), std::invalid_argument);
}

// ---- yarn-paper, the ramp the paper prints ------------------------------------------------------------

TEST_CASE("yarn-paper's ramp: 0 below alpha = 1, 1 above beta = 32, linear between", "[extension]") {
    CHECK(yarn_ramp(0.2) == 0.0);
    CHECK(yarn_ramp(1.0) == 0.0);
    CHECK(yarn_ramp(16.5) == Approx(0.5));
    CHECK(yarn_ramp(32.0) == 1.0);
    CHECK(yarn_ramp(500.0) == 1.0);
    CHECK(yarn_ramp(2.0, YarnRamp{2.0, 4.0}) == 0.0);
    CHECK(yarn_ramp(3.0, YarnRamp{2.0, 4.0}) == Approx(0.5));
}

TEST_CASE("yarn-paper at a LLaMA's scale leaves the fastest pairs untouched and interpolates the slowest", "[extension]") {
    // H = 128, base 10,000, trained on L = 4096, extended 8x: r_i = L / lambda_i.
    const double s = 8.0;
    const std::vector<double> theta = rope_frequencies(128, 10000.0);
    const std::vector<double> turns = yarn_turns_within(theta, 4096);
    const std::vector<double> blended = yarn_paper_frequencies(theta, s, 4096);
    CHECK(turns[0] == Approx(4096.0 / (2.0 * std::numbers::pi)));
    int untouched = 0, interpolated = 0, between = 0;
    for (size_t i = 0; i < theta.size(); ++i) {
        INFO("pair " << i << ", r = " << turns[i]);
        if (turns[i] > 32.0) {
            CHECK(blended[i] == theta[i]);
            ++untouched;
        } else if (turns[i] < 1.0) {
            CHECK(blended[i] == Approx(theta[i] / s).epsilon(1e-12));
            ++interpolated;
        } else {
            const double gamma = (turns[i] - 1.0) / 31.0;
            CHECK(blended[i] == Approx((1.0 - gamma) * theta[i] / s + gamma * theta[i]).epsilon(1e-12));
            ++between;
        }
    }
    CHECK(untouched == 21);  // pairs 0..20 turn more than 32 times within 4096 positions
    CHECK(between == 25);
    CHECK(interpolated == 18);
}

TEST_CASE("yarn-paper at the experiment's scale (H = 64, L = 32): no pair is untouched", "[extension]") {
    // Pair 0 turns 32 / (2 pi) = 5.09 times within 32 positions, far from beta = 32: every pair is
    // interpolated at least in part, and most are interpolated in full. Where YaRN's code keeps pair 0
    // whole and 5/6 of pair 1, the paper's ramp keeps 0.13 and 0.091 of them.
    for (const auto& [base, partly, fully] : {std::tuple{10000.0, 6, 26}, std::tuple{1000000.0, 4, 28}}) {
        INFO("base " << base);
        const std::vector<double> theta = rope_frequencies(64, base);
        const std::vector<double> turns = yarn_turns_within(theta, 32);
        CHECK(turns[0] == Approx(32.0 / (2.0 * std::numbers::pi)));
        int partly_count = 0, fully_count = 0;
        for (double r : turns) {
            CHECK(yarn_ramp(r) < 1.0);
            partly_count += yarn_ramp(r) > 0.0;
            fully_count += yarn_ramp(r) == 0.0;
        }
        CHECK(partly_count == partly);
        CHECK(fully_count == fully);
        CHECK(yarn_ramp(turns[0]) == Approx((32.0 / (2.0 * std::numbers::pi) - 1.0) / 31.0));
    }
    const std::vector<double> turns = yarn_turns_within(rope_frequencies(64, 10000.0), 32);
    CHECK(yarn_ramp(turns[0]) == Approx(0.132).margin(5e-4));
    CHECK(yarn_ramp(turns[1]) == Approx(0.091).margin(5e-4));
    CHECK(yarn_kept_fractions(64, 10000.0, 32)[1] == Approx(5.0 / 6.0));
}

TEST_CASE("YaRN's temperature: sqrt(1/t) = 0.1 ln s + 1, and s = 1 changes nothing", "[extension]") {
    CHECK(yarn_query_key_scale(1.0) == 1.0);
    CHECK(yarn_query_key_scale(16.0) == Approx(0.1 * std::log(16.0) + 1.0));
    CHECK(yarn_query_key_scale(std::exp(10.0)) == Approx(2.0));
    const std::vector<double> theta = rope_frequencies(64, 10000.0);
    CHECK(yarn_frequencies(64, 10000.0, 1.0, 32) == theta);
    CHECK(yarn_paper_frequencies(theta, 1.0, 32) == theta);
}

// ---- applying an extension ------------------------------------------------------------------------

TEST_CASE("extend_context builds each method's RoPE; at s = 1 every method is plain RoPE", "[extension]") {
    using Kind = ExtensionSpec::Kind;
    const std::vector<double> theta = rope_frequencies(16, 10000.0);
    const auto extended = [](Kind kind, double s) { return extend_context(16, 10000.0, RopePairing::interleaved, kind, s, 32); };
    for (Kind kind : {Kind::pi, Kind::ntk, Kind::yarn, Kind::yarn_paper}) {
        INFO(extension_name(kind, 1.0));
        const auto rope = extended(kind, 1.0);
        for (size_t i = 0; i < theta.size(); ++i) CHECK(rope->frequencies[i] == Approx(theta[i]).epsilon(1e-14));
        CHECK(rope->query_key_scale == 1.0f);
    }
    CHECK(extended(Kind::pi, 4.0)->frequencies == position_interpolation(theta, 4.0));
    CHECK(extended(Kind::ntk, 4.0)->frequencies == rope_frequencies(16, ntk_scaled_base(10000.0, 16, 4.0)));
    CHECK(extended(Kind::ntk, 4.0)->query_key_scale == 1.0f);
    CHECK(extended(Kind::yarn, 4.0)->frequencies == yarn_frequencies(16, 10000.0, 4.0, 32));
    CHECK(extended(Kind::yarn, 4.0)->query_key_scale == static_cast<float>(0.1 * std::log(4.0) + 1.0));
    const auto rope = extended(Kind::yarn_paper, 4.0);
    CHECK(rope->frequencies == yarn_paper_frequencies(theta, 4.0, 32));
    CHECK(rope->query_key_scale == static_cast<float>(0.1 * std::log(4.0) + 1.0));
    CHECK(rope->spec() == "rope");  // named by its base, as the scheme it was trained with
    CHECK_THROWS_AS(extended(Kind::pi, 0.5), std::invalid_argument);
}

TEST_CASE("YaRN multiplies every attention logit by (0.1 ln s + 1)^2", "[extension]") {
    const int64_t H = 8, T = 12;
    const double s = 8.0;
    const auto extended = extend_context(H, 10000.0, RopePairing::interleaved, ExtensionSpec::Kind::yarn, s, 4);
    const RotaryPositions& yarn = *extended;
    // the same frequencies, without the temperature
    const RotaryPositions blended_only(H, 10000.0, RopePairing::interleaved, yarn.frequencies, 1.0f);
    const Value q(random_tensor(Shape{1, 1, T, H}, 3)), k(random_tensor(Shape{1, 1, T, H}, 4));
    const Tensor with_q = yarn.rotate_queries_keys(q).value().reshaped(Shape{T, H});
    const Tensor with_k = yarn.rotate_queries_keys(k).value().reshaped(Shape{T, H});
    const Tensor without_q = blended_only.rotate_queries_keys(q).value().reshaped(Shape{T, H});
    const Tensor without_k = blended_only.rotate_queries_keys(k).value().reshaped(Shape{T, H});
    const double factor = std::pow(0.1 * std::log(s) + 1.0, 2.0);
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n <= m; ++n)
            CHECK(row_dot(with_q, m, with_k, n) == Approx(factor * row_dot(without_q, m, without_k, n)).epsilon(1e-5).margin(1e-5));
}

TEST_CASE("extension specs: pi, ntk, yarn, yarn-paper with an optional factor s >= 1; anything else refused", "[extension]") {
    using Kind = ExtensionSpec::Kind;
    for (const auto& [text, kind, has_factor, factor] :
         {std::tuple{"pi", Kind::pi, false, 1.0}, std::tuple{"ntk", Kind::ntk, false, 1.0},
          std::tuple{"yarn", Kind::yarn, false, 1.0}, std::tuple{"pi:4", Kind::pi, true, 4.0},
          std::tuple{"yarn:2.5", Kind::yarn, true, 2.5}, std::tuple{"ntk:1", Kind::ntk, true, 1.0},
          std::tuple{"yarn-paper", Kind::yarn_paper, false, 1.0}, std::tuple{"yarn-paper:16", Kind::yarn_paper, true, 16.0}}) {
        INFO(text);
        const ExtensionSpec spec = parse_extension_spec(text);
        CHECK(spec.kind == kind);
        CHECK(spec.has_factor == has_factor);
        if (has_factor) CHECK(spec.factor == factor);
    }
    for (const char* text : {"", "PI", "pi:", "pi:0.5", "pi:0", "pi:-2", "pi:abc", "pi:nan", "pi:inf", "linear:4",
                             "yarn:4x", "ntk4", "yarn_paper", "yarn-paper:", "yarn-Paper:4", "paper"}) {
        INFO("'" << text << "'");
        CHECK_THROWS_AS(parse_extension_spec(text), std::invalid_argument);
        CHECK_THROWS_WITH(parse_extension_spec(text), ContainsSubstring(extension_spec_forms));
    }
    CHECK(extension_name(Kind::yarn, 16.0) == "yarn:16");
    CHECK(extension_name(Kind::yarn_paper, 4.0) == "yarn-paper:4");
    CHECK(extension_name(Kind::pi, 3.125) == "pi:3.125");
}

TEST_CASE("a run with --extend: named in its line, s from the lengths, refused for other schemes", "[extension][tasks]") {
    RunConfig config = tiny_run("lag", "rope");
    config.test_lengths = {32, 128};
    config.extension = "yarn";
    const RunResult result = run_experiment(config);
    CHECK(result.extension == "yarn:4");  // 128 / 32
    const std::string line = format_result_line(config, result);
    CHECK_THAT(line, ContainsSubstring("lag  rope+yarn:4  seed 0: length 32 / 128: "));
    const auto parsed = parse_result_line(line);
    REQUIRE(parsed.has_value());
    CHECK(parsed->scheme == "rope+yarn:4");

    config.extension = "pi:2";
    CHECK(run_experiment(config).extension == "pi:2");
    config.extension = "yarn-paper";
    const RunResult paper = run_experiment(config);
    CHECK(paper.extension == "yarn-paper:4");
    const auto paper_line = parse_result_line(format_result_line(config, paper));
    REQUIRE(paper_line.has_value());
    CHECK(paper_line->scheme == "rope+yarn-paper:4");

    // At s = 1 each method is RoPE itself: the same accuracies, figure for figure.
    RunConfig plain = tiny_run("seen", "rope:500");
    const RunResult reference = run_experiment(plain);
    for (const char* method : {"pi:1", "ntk:1", "yarn:1", "yarn-paper:1"}) {
        INFO(method);
        RunConfig extended = plain;
        extended.extension = method;
        const RunResult same = run_experiment(extended);
        CHECK(same.accuracy == reference.accuracy);
        CHECK(same.scaled_accuracy == reference.scaled_accuracy);
    }

    RunConfig not_rope = tiny_run("lag", "alibi:0.5");
    not_rope.extension = "pi";
    CHECK_THAT(invalid_argument_message([&] { validate(not_rope); }), ContainsSubstring("needs a RoPE scheme"));
    RunConfig bad = tiny_run("lag", "rope");
    bad.extension = "stretch";
    CHECK_THAT(invalid_argument_message([&] { validate(bad); }), ContainsSubstring(extension_spec_forms));
}
