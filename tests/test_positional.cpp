// Tests of positional/: the chapter's RoPE facts (scores depend only on n - m, rotation keeps length),
// the fast rotation against its reference loop, the rope op's gradient and attention's through it, the
// two pairing conventions, ALiBi's slopes and penalty, the sinusoid table, the learned table's limit,
// spec parsing and log-length scaling, and the numbers a spec holds (parse_real, held to
// std::from_chars). Leaves out training with each scheme (tests/test_tasks.cpp runs a tiny one).
#include "tests/catch.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "autograd/ops.hpp"
#include "nn/transformer.hpp"
#include "positional/alibi.hpp"
#include "positional/learned.hpp"
#include "positional/length_scaling.hpp"
#include "positional/make_position.hpp"
#include "tensor/number_text.hpp"
#include "positional/rope.hpp"
#include "positional/sinusoid.hpp"
#include "positional/spec.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

// RoPE's rotation written out directly from the definition, angles computed per element in double,
// no table: what positional/rope.cpp's table-driven rotation is held to.
static Tensor rope_rotate_reference(const Tensor& x, double base, RopePairing pairing, bool inverse = false) {
    const Shape& s = x.shape();
    const int64_t H = s.last(), T = s[s.rank() - 2], pairs = H / 2;
    Tensor out(s);
    for (int64_t r = 0; r < s.rows(); ++r)
        for (int64_t i = 0; i < pairs; ++i) {
            const double angle = (inverse ? -1.0 : 1.0) * static_cast<double>(r % T) * std::pow(base, -2.0 * i / H);
            const int64_t j1 = pairing == RopePairing::interleaved ? 2 * i : i;
            const int64_t j2 = pairing == RopePairing::interleaved ? 2 * i + 1 : i + pairs;
            const double a = x[r * H + j1], b = x[r * H + j2];
            out[r * H + j1] = static_cast<float>(a * std::cos(angle) - b * std::sin(angle));
            out[r * H + j2] = static_cast<float>(a * std::sin(angle) + b * std::cos(angle));
        }
    return out;
}

namespace {

// Interleaved layout -> half-split layout: pair i lives at (2i, 2i+1) in one, (i, i + H/2) in the other.
Tensor interleaved_to_half_split(const Tensor& x) {
    const int64_t H = x.shape().last(), half = H / 2;
    Tensor out(x.shape());
    for (int64_t r = 0; r < x.shape().rows(); ++r)
        for (int64_t i = 0; i < half; ++i) {
            out[r * H + i] = x[r * H + 2 * i];
            out[r * H + i + half] = x[r * H + 2 * i + 1];
        }
    return out;
}

// One check per comparison: the largest difference, and where it is.
void check_within(const Tensor& actual, const Tensor& expected, double margin) {
    REQUIRE(actual.shape() == expected.shape());
    double worst = 0.0;
    int64_t worst_at = 0;
    for (int64_t i = 0; i < actual.numel(); ++i)
        if (std::abs(double(actual[i]) - expected[i]) > worst) worst = std::abs(double(actual[i]) - expected[i]), worst_at = i;
    INFO("largest difference " << worst << " at element " << worst_at);
    CHECK(worst <= margin);
}

// The chapter's head (H = 8, base 10,000, interleaved pairs) over six positions, three leaves q, k, v (T, H) =
// (6, 8) drawn in that order from Generator(5).
std::vector<Value> chapter_head_qkv() {
    Generator generator(5);
    std::vector<Value> qkv;
    for (int i = 0; i < 3; ++i) qkv.emplace_back(Tensor::normal(Shape{6, 8}, 0.0f, 1.0f, generator), true);
    return qkv;
}

}  // namespace

TEST_CASE("RoPE: the score of a query at m and a key at n depends only on n - m", "[positional][rope]") {
    // The chapter's check, with H = 8 and base 10000: (3, 5), (10, 12) and (100, 102) score the same,
    // (3, 10) does not. Float rotations agree to about 1e-6 here; the scores are of order 1.
    const int64_t H = 8, T = 103;
    const RopeTable table = make_rope_table(T, rope_frequencies(H, 10000.0), RopePairing::interleaved);
    const Tensor q = rope_rotate(repeated_rows(random_tensor(Shape{H}, 1), T), table);  // (T, H)
    const Tensor k = rope_rotate(repeated_rows(random_tensor(Shape{H}, 2), T), table);  // (T, H)
    const double at_3_5 = row_dot(q, 3, k, 5);
    CHECK(row_dot(q, 10, k, 12) == Approx(at_3_5).margin(1e-5));
    CHECK(row_dot(q, 100, k, 102) == Approx(at_3_5).margin(1e-5));
    CHECK(std::abs(row_dot(q, 3, k, 10) - at_3_5) > 1e-2);
}

TEST_CASE("RoPE: rotation keeps each vector's length", "[positional][rope]") {
    const int64_t H = 8, T = 103;
    const Tensor x = random_tensor(Shape{H}, 3);
    const Tensor rotated = rope_rotate(repeated_rows(x, T), make_rope_table(T, rope_frequencies(H, 10000.0),
                                                                            RopePairing::interleaved));
    const double length = std::sqrt(row_dot(repeated_rows(x, 1), 0, repeated_rows(x, 1), 0));
    for (int64_t p : {0, 1, 57, 102}) {
        INFO("position " << p);
        CHECK(std::sqrt(row_dot(rotated, p, rotated, p)) == Approx(length).epsilon(1e-6));
    }
}

TEST_CASE("rope_rotate (and in place) agrees with rope_rotate_reference, both pairings, forward and inverse", "[positional][rope]") {
    // (B, NH, T, H) = (2, 2, 5, 8); and (2, 2, 1100, 8), large enough for the OpenMP loop to run.
    for (int64_t T : {5, 1100})
        for (double base : {10000.0, 500000.0})
            for (RopePairing pairing : {RopePairing::interleaved, RopePairing::half_split})
                for (bool inverse : {false, true}) {
                    INFO("T " << T << ", base " << base << ", half-split " << (pairing == RopePairing::half_split)
                              << ", inverse " << inverse);
                    const Tensor x = random_tensor(Shape{2, 2, T, 8}, 4);
                    const RopeTable table = make_rope_table(T, rope_frequencies(8, base), pairing);
                    const Tensor fast = rope_rotate(x, table, inverse);
                    check_within(fast, rope_rotate_reference(x, base, pairing, inverse), 1e-5);
                    check_within(rope_rotate(fast, table, !inverse), x, 1e-5);  // the two directions undo each other
                    Tensor in_place = x;
                    rope_rotate_inplace(in_place, table, inverse);
                    CHECK(numbers(in_place) == numbers(fast));  // rotating where x lies gives the same numbers
                }
}

TEST_CASE("rope op: full-Jacobian gradcheck, both pairings", "[positional][rope]") {
    for (RopePairing pairing : {RopePairing::interleaved, RopePairing::half_split}) {
        const RopeTable table = make_rope_table(3, rope_frequencies(4, 10000.0), pairing);
        const Value x(random_tensor(Shape{2, 2, 3, 4}, 5), true);  // (B, NH, T, H)
        const GradcheckResult result =
            gradcheck([&](const std::vector<Value>& in) { return rope(in[0], table); }, {x}, default_tolerance);
        INFO("worst entry: " << result.worst);
        CHECK(result.entries == 48 * 48);
        CHECK(result.passed);
    }
}

TEST_CASE("rope op at the chapter's head (T = 6, H = 8): its backward, the rotation backwards, is the full Jacobian",
          "[positional][rope]") {
    const RopeTable table = make_rope_table(6, rope_frequencies(8, 10000.0), RopePairing::interleaved);
    const Value q = chapter_head_qkv()[0];
    const GradcheckResult result =
        gradcheck([&](const std::vector<Value>& in) { return rope(in[0], table); }, {q}, default_tolerance);
    INFO("worst entry: " << result.worst << " (abs error " << result.max_abs_error << ")");
    CHECK(result.entries == 48 * 48);
    CHECK(result.passed);
}

TEST_CASE("attention through RoPE, the chain of plain ops: full-Jacobian gradcheck of q, k and v", "[positional][rope]") {
    // softmax(rope(q) rope(k)^T / sqrt(H), causal) v
    const RopeTable table = make_rope_table(6, rope_frequencies(8, 10000.0), RopePairing::interleaved);
    const float factor = 1.0f / std::sqrt(8.0f);
    check_gradients(
        [&](const std::vector<Value>& in) { return attention(rope(in[0], table), rope(in[1], table), in[2], Value(), factor); },
        chapter_head_qkv(), default_tolerance);
}

TEST_CASE("RoPE pairing conventions give the same scores up to a fixed permutation of dimensions",
          "[positional][rope]") {
    // Queries and keys laid out for the interleaved convention, and the same numbers moved to where the
    // half-split convention keeps each pair: rotated, the vectors are the same permutation of each
    // other, so every query-key score is equal.
    const int64_t T = 6, H = 8;
    const Tensor q = random_tensor(Shape{T, H}, 6), k = random_tensor(Shape{T, H}, 7);
    const auto frequencies = rope_frequencies(H, 10000.0);
    const RopeTable interleaved = make_rope_table(T, frequencies, RopePairing::interleaved);
    const RopeTable half_split = make_rope_table(T, frequencies, RopePairing::half_split);
    const Tensor q1 = rope_rotate(q, interleaved), k1 = rope_rotate(k, interleaved);
    const Tensor q2 = rope_rotate(interleaved_to_half_split(q), half_split);
    const Tensor k2 = rope_rotate(interleaved_to_half_split(k), half_split);
    check_within(q2, interleaved_to_half_split(q1), 1e-6);
    for (int64_t m = 0; m < T; ++m)
        for (int64_t n = 0; n < T; ++n) CHECK(row_dot(q2, m, k2, n) == Approx(row_dot(q1, m, k1, n)).margin(1e-5));
    // Without the permutation the conventions disagree: mixing them is the trap the chapter warns of.
    CHECK(std::abs(row_dot(rope_rotate(q, half_split), 5, rope_rotate(k, half_split), 2) - row_dot(q1, 5, k1, 2)) > 1e-3);
}

TEST_CASE("ALiBi: 8 heads get slopes 1/2, 1/4, ..., 1/256 exactly", "[positional][alibi]") {
    const std::vector<double> slopes = alibi_slopes(8);
    REQUIRE(slopes.size() == 8);
    for (int k = 1; k <= 8; ++k) CHECK(slopes[k - 1] == std::ldexp(1.0, -k));
    CHECK(alibi_slopes(1) == std::vector<double>{1.0 / 256});
    CHECK_THROWS_AS(alibi_slopes(0), std::invalid_argument);
}

TEST_CASE("ALiBi: the penalty is -slope * (m - n) below the diagonal", "[positional][alibi]") {
    const Tensor bias = alibi_bias({0.5, 0.25}, 3);  // (NH=2, T=3, T=3)
    REQUIRE(bias.shape() == Shape{2, 3, 3});
    const std::vector<float> expected{0, 0, 0, -0.5f, 0, 0, -1.0f, -0.5f, 0,     // head 0, slope 1/2
                                      0, 0, 0, -0.25f, 0, 0, -0.5f, -0.25f, 0};  // head 1, slope 1/4
    for (int64_t i = 0; i < 18; ++i) CHECK(bias[i] == expected[i]);

    // A given slope is shared by every head; no slope means the geometric ones.
    const Tensor shared = AlibiPositions(0.5).score_bias(2, 3).value();
    for (int64_t i = 0; i < 9; ++i) CHECK(shared[9 + i] == expected[i]);
    const Tensor geometric = AlibiPositions().score_bias(2, 3).value();  // 2 heads: 1/16, 1/256
    CHECK(geometric[3] == -1.0f / 16);
    CHECK(geometric[9 + 3] == -1.0f / 256);
    CHECK(AlibiPositions(0.5).spec() == "alibi:0.5");
    CHECK(AlibiPositions().spec() == "alibi");
}

TEST_CASE("ALiBi in attention: the penalty is added after the score scale, before the causal softmax",
          "[positional][alibi]") {
    // With qkv zeroed every q.k is 0, so the weights are the softmax of the penalty alone, and the
    // test-time score scale (which multiplies q.k only) changes nothing.
    const AlibiPositions alibi(0.5);
    Generator generator(8);
    CausalSelfAttention attention(4, 1, alibi, generator);
    attention.qkv.weight.value().fill(0.0f);
    attention.qkv.bias.value().fill(0.0f);
    std::vector<Tensor> kept;
    ForwardOptions options;
    options.score_scale = 2.0f;
    options.attention_weights = &kept;
    attention.forward(Value(random_tensor(Shape{1, 3, 4}, 9)), options);
    REQUIRE(kept.size() == 1);
    const Tensor& w = kept[0];  // (B=1, NH=1, T=3, T=3)
    const double total = std::exp(-1.0) + std::exp(-0.5) + 1.0;
    const std::vector<double> expected{1, 0, 0, std::exp(-0.5) / (std::exp(-0.5) + 1), 1 / (std::exp(-0.5) + 1), 0,
                                       std::exp(-1.0) / total, std::exp(-0.5) / total, 1 / total};
    for (int64_t i = 0; i < 9; ++i) CHECK(w[i] == Approx(expected[i]).margin(1e-6));
}

TEST_CASE("attention with RoPE and with ALiBi: full-Jacobian gradcheck", "[positional][rope][alibi]") {
    // The layer's own parameters are passed to gradcheck as the module's handles (shared nodes), as
    // in tests/test_nn.cpp: gradcheck nudges the very tensors the forward reads.
    const RotaryPositions rope_scheme(2, 10000.0);
    const AlibiPositions alibi_scheme;
    for (const PositionEncoding* scheme : {static_cast<const PositionEncoding*>(&rope_scheme),
                                           static_cast<const PositionEncoding*>(&alibi_scheme)}) {
        INFO(scheme->spec());
        Generator generator(10);
        CausalSelfAttention attention(4, 2, *scheme, generator);
        std::vector<Value> inputs{Value(random_tensor(Shape{2, 3, 4}, 11), true)};
        for (const Value& p : attention.parameters()) inputs.push_back(p);
        const GradcheckResult result = gradcheck(
            [&](const std::vector<Value>& in) { return attention.forward(in[0]); }, inputs, default_tolerance);
        INFO("worst entry: " << result.worst);
        CHECK(result.passed);
    }
}

TEST_CASE("sinusoid table: Vaswani's formula, and every position's row is unique", "[positional][sinusoid]") {
    // pe[p, 2i] = sin(p * 10000^(-2i/D)), pe[p, 2i+1] = cos(same); D = 8, so 10000^(-2i/8) is
    // 1, 0.1, 0.01, 0.001 for i = 0..3.
    const Tensor pe = sinusoid_table(50, 8);
    REQUIRE(pe.shape() == Shape{50, 8});
    auto at = [&](int64_t p, int64_t c) { return pe[p * 8 + c]; };
    CHECK(at(0, 0) == 0.0f);
    CHECK(at(0, 1) == 1.0f);
    CHECK(at(1, 0) == Approx(std::sin(1.0)).margin(1e-7));
    CHECK(at(1, 1) == Approx(std::cos(1.0)).margin(1e-7));
    CHECK(at(7, 2) == Approx(std::sin(0.7)).margin(1e-7));
    CHECK(at(7, 3) == Approx(std::cos(0.7)).margin(1e-7));
    CHECK(at(30, 4) == Approx(std::sin(0.3)).margin(1e-7));
    CHECK(at(49, 7) == Approx(std::cos(0.049)).margin(1e-7));

    // The chapter's sizes: 128 positions, D = 64. No two rows closer than 1e-3 anywhere.
    const Tensor big = sinusoid_table(128, 64);
    double closest = 1e9;
    for (int64_t p = 0; p < 128; ++p)
        for (int64_t q = p + 1; q < 128; ++q) {
            double largest_difference = 0.0;
            for (int64_t c = 0; c < 64; ++c)
                largest_difference = std::max(largest_difference, std::abs(double(big[p * 64 + c]) - big[q * 64 + c]));
            closest = std::min(closest, largest_difference);
        }
    CHECK(closest > 1e-3);

    // The scheme adds the table to each sequence of the batch.
    const Tensor added = SinusoidPositions(8).add_to_embeddings(Value(Tensor(Shape{2, 5, 8}))).value();
    for (int64_t i = 0; i < 40; ++i) CHECK(added[40 + i] == pe[i]);
}

TEST_CASE("learned table: adds its rows, and refuses a position past them", "[positional][learned]") {
    Generator generator(12);
    LearnedPositions learned(128, 8, generator);
    const Tensor added = learned.add_to_embeddings(Value(Tensor(Shape{1, 128, 8}))).value();
    for (int64_t i = 0; i < 128 * 8; ++i) CHECK(added[i] == learned.table.value()[i]);
    CHECK_THROWS_AS(learned.add_to_embeddings(Value(Tensor(Shape{1, 129, 8}))), std::out_of_range);
    CHECK_THROWS_WITH(learned.add_to_embeddings(Value(Tensor(Shape{1, 129, 8}))), ContainsSubstring("128"));

    // Only the rows a sequence reaches get a gradient: trained on length 4, rows 4.. stay as drawn.
    sum(learned.add_to_embeddings(Value(Tensor(Shape{2, 4, 8})))).backward();
    for (int64_t i = 0; i < 128 * 8; ++i) CHECK(learned.table.grad()[i] == (i < 4 * 8 ? 2.0f : 0.0f));

    // In a model the table is named after the place it was registered, right after the tokens.
    TransformerConfig config;
    config.vocab = 4, config.outputs = 4, config.dim = 8, config.layers = 1, config.mlp_hidden = 8;
    Transformer model(config, make_position_encoding(parse_position_spec("learned"), 8, 1, generator), generator);
    const auto named = model.named_parameters();
    CHECK(named[0].first == "tokens.weight");
    CHECK(named[1].first == "position.weight");
    CHECK(named[1].second.shape() == Shape{128, 8});
}

TEST_CASE("spec parser accepts the valid forms", "[positional][spec]") {
    using Kind = PositionSpec::Kind;
    struct Case {
        const char* text;
        Kind kind;
        bool has_value;
        double value;
    };
    for (const Case& c : {Case{"none", Kind::none, false, 0}, Case{"sinusoid", Kind::sinusoid, false, 0},
                          Case{"learned", Kind::learned, false, 0}, Case{"rope", Kind::rope, false, 0},
                          Case{"rope:500000", Kind::rope, true, 500000}, Case{"alibi", Kind::alibi, false, 0},
                          Case{"alibi:0.5", Kind::alibi, true, 0.5}}) {
        INFO(c.text);
        const PositionSpec spec = parse_position_spec(c.text);
        CHECK(spec.kind == c.kind);
        CHECK(spec.has_value == c.has_value);
        if (c.has_value) CHECK(spec.value == c.value);
        CHECK(spec.text == c.text);
        // The scheme built from it names itself by the same spec.
        Generator generator(13);
        CHECK(make_position_encoding(spec, 8, 2, generator)->spec() == c.text);
    }
}

TEST_CASE("spec parser refuses anything else, listing the valid forms", "[positional][spec]") {
    for (const char* text : {"rope:abc", "alibi:-1", "alibi:0", "rope:1", "rope:1.0000001", "alibi:1.19e-38", "pos", "learned:3", "", "rope:", "rope:nan",
                             "alibi:0.5x", "ROPE"}) {
        INFO("'" << text << "'");
        CHECK_THROWS_AS(parse_position_spec(text), std::invalid_argument);
        CHECK_THROWS_WITH(parse_position_spec(text), ContainsSubstring(position_spec_forms));
    }
}

TEST_CASE("parse_real reads exactly what std::from_chars reads, and refuses what it refuses", "[positional][spec]") {
    // std::from_chars for double is what parse_real used before it read with strtod_l (which every C
    // library has): the same double, bit for bit, and the same refusals, past the range and at its
    // edges included (a subnormal is read; a value that underflows to zero is refused).
    std::vector<std::string> texts = {"0", "-0", "0.5", ".5", "2.", "1e-3", "1E+3", "-2", "0.1", "1e23", "1e308", "1e309",
                                      "1e400", "1e-400", "1e-310", "4.9e-324", "2.5e-324", "2.4e-324", "5e-324",
                                      "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623158e308",
                                      "1.7976931348623159e308", "0e999999", "1e-2147483649", "9007199254740993",
                                      "1.00000000000000011102230246251565404236316680908203125",
                                      "1.00000000000000011102230246251565404236316680908203126", "123456789012345678901234567890"};
    Generator generator(21);
    for (int i = 0; i < 20000; ++i) {  // doubles of every exponent, printed to 1 to 19 digits
        const uint64_t bits = generator.next_u64();
        double x = 0;
        std::memcpy(&x, &bits, sizeof x);
        if (!std::isfinite(x)) continue;
        char text[64];
        std::snprintf(text, sizeof text, "%.*g", 1 + static_cast<int>(generator.integer(19)), x);
        texts.push_back(text);
    }
    int read = 0;
    for (const std::string& text : texts) {
        INFO("'" << text << "'");
        double expected = 0;
        const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), expected);
        const bool readable = error == std::errc() && stop == text.data() + text.size() && std::isfinite(expected);
        if (!readable) {
            // A number in the rule's form past a double's range is that (NumberPastRange), with the side it is past.
            const bool past_range = error == std::errc::result_out_of_range && stop == text.data() + text.size();
            if (!past_range) {
                CHECK_THROWS_WITH(parse_real(text, "x"), "x needs a number, got '" + text + "'");
                continue;
            }
            try {
                parse_real(text, "x");
                FAIL("read past a double's range");
            } catch (const NumberPastRange& e) {
                CHECK(std::string(e.what()) == "x needs a number within a double's range (sizes from about 4.9e-324 to 1.8e308), got '" + text + "'");
                const size_t exponent = text.find_first_of("eE");
                CHECK(e.huge == (exponent == std::string::npos || text[exponent + 1] != '-'));
                CHECK(e.negative == (text[0] == '-'));
            }
            continue;
        }
        const double value = parse_real(text, "x");
        CHECK(std::memcmp(&value, &expected, sizeof value) == 0);
        ++read;
    }
    CHECK(read > 19000);
}

TEST_CASE("log-length scaling: log(T) / log(T_train)", "[positional][scaling]") {
    CHECK(log_length_scale(128, 32) == static_cast<float>(std::log(128.0) / std::log(32.0)));
    CHECK(log_length_scale(128, 32) == Approx(7.0 / 5.0));  // log 2^7 / log 2^5
    CHECK(log_length_scale(32, 32) == 1.0f);
}
