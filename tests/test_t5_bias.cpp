// Tests of T5's learned relative position bias, the relative method the chapter names but does not
// test: its buckets against Hugging Face's T5 code, the bias's layout, its initialisation, full-Jacobian
// gradchecks, that it trains, its spec, and a tiny run on each task.
// Leaves out accuracy (make experiment-extension trains t5 with the other schemes).
#include "tests/catch.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/ops.hpp"
#include "nn/attention.hpp"
#include "nn/transformer.hpp"
#include "positional/make_position.hpp"
#include "positional/spec.hpp"
#include "positional/t5_bias.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

}  // namespace

TEST_CASE("T5 buckets: Hugging Face's _relative_position_bucket, unidirectional, 32 buckets, max 128", "[t5]") {
    // The expected buckets were computed once with transformers' T5 code (bidirectional=False) in
    // PyTorch, for relative position n - m = -distance.
    const std::vector<std::pair<int64_t, int64_t>> expected{
        {0, 0},   {1, 1},   {15, 15}, {16, 16}, {17, 16}, {20, 17}, {22, 18},  {23, 18},  {31, 21},
        {32, 21}, {45, 23}, {64, 26}, {90, 29}, {127, 31}, {128, 31}, {1000, 31}, {-5, 0}};
    for (const auto& [distance, bucket] : expected) {
        INFO("distance " << distance);
        CHECK(t5_bucket(distance, 32) == bucket);
    }
    // The first distance of each bucket, from the same code.
    const std::vector<int64_t> first{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                     16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113};
    for (int64_t b = 0; b < 32; ++b) {
        INFO("bucket " << b);
        CHECK(t5_bucket(first[b], 32) == b);
        if (first[b] > 0) CHECK(t5_bucket(first[b] - 1, 32) == b - 1);
    }
    CHECK(t5_bucket(5, 2) == 1);
    CHECK(t5_bucket(127, 255) == 127);
    CHECK(t5_bucket(128, 255) == 254);
    CHECK(t5_bucket(9, 8) == 4);
    CHECK(t5_bucket(10, 8) == 5);
    CHECK_THROWS_AS(t5_bucket(3, 1), std::invalid_argument);
    CHECK_THROWS_AS(t5_bucket(3, 256), std::invalid_argument);
}

TEST_CASE("T5 bias: entry [h, m, n] is table[bucket(m - n), h]; keys ahead use bucket 0", "[t5]") {
    const int64_t buckets = 32, heads = 2, T = 40;
    const Tensor table = random_tensor(Shape{buckets, heads}, 5);
    const Tensor bias = t5_bias(Value(table), T).value();
    REQUIRE(bias.shape() == Shape{heads, T, T});
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = 0; n < T; ++n) {
                const int64_t bucket = n > m ? 0 : t5_bucket(m - n, buckets);
                CHECK(bias[(h * T + m) * T + n] == table[bucket * heads + h]);
            }
}

TEST_CASE("T5 bias: the table starts N(0, D^-1/2), drawn from the scheme's generator, named position.weight", "[t5]") {
    const int64_t dim = 16, heads = 2;
    Generator drawn(21), expected(21);
    const T5RelativeBias scheme(32, heads, dim, drawn);
    const Tensor reference = Tensor::normal(Shape{32, heads}, 0.0f, 0.25f, expected);
    REQUIRE(scheme.table.shape() == Shape{32, heads});
    for (int64_t i = 0; i < reference.numel(); ++i) CHECK(scheme.table.value()[i] == reference[i]);

    Generator generator(22);
    TransformerConfig config;
    config.dim = dim, config.heads = heads, config.layers = 2;
    Transformer model(config, make_position_encoding(parse_position_spec("t5:8"), dim, heads, generator), generator);
    const auto named = model.named_parameters();
    CHECK(named[1].first == "position.weight");
    CHECK(named[1].second.shape() == Shape{8, heads});
}

TEST_CASE("T5 bias: full-Jacobian gradcheck of the gather, and of attention with the bias", "[t5]") {
    // 8 buckets over T = 7: distances 0..3 exact, 4..6 in the first log-spaced bucket.
    testing::check_gradients([](const std::vector<Value>& in) { return t5_bias(in[0], 7); },
                             {Value(random_tensor(Shape{8, 2}, 6), true)}, default_tolerance);

    Generator generator(10);
    const T5RelativeBias scheme(4, 2, 4, generator);
    CausalSelfAttention attention(4, 2, scheme, generator);
    std::vector<Value> inputs{Value(random_tensor(Shape{2, 5, 4}, 11), true), scheme.table};
    for (const Value& p : attention.parameters()) inputs.push_back(p);
    testing::check_gradients([&](const std::vector<Value>& in) { return attention.forward(in[0]); }, inputs,
                             default_tolerance);
}

TEST_CASE("T5 bias trains: a backward reaches the buckets of distances seen, and only those", "[t5]") {
    Generator generator(30);
    TransformerConfig config;
    config.dim = 8, config.layers = 2, config.mlp_hidden = 16;
    Transformer model(config, make_position_encoding(parse_position_spec("t5"), 8, 1, generator), generator);
    const int64_t T = 20;  // distances 0..19: buckets 0..17
    std::vector<int> tokens(2 * T);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int>(i % 16);
    sum(model.forward(tokens, 2, T)).backward();
    const Tensor& grad = static_cast<const T5RelativeBias&>(*model.position).table.grad();
    for (int64_t b = 0; b < 32; ++b) {
        INFO("bucket " << b);
        if (b <= t5_bucket(T - 1, 32)) CHECK(grad[b] != 0.0f);
        else CHECK(grad[b] == 0.0f);
    }
}

TEST_CASE("T5 spec: t5 and t5:N for 2 <= N <= 255; anything else refused, listing the valid forms", "[t5][positional][spec]") {
    for (const auto& [text, has_value, value] :
         {std::tuple{"t5", false, 0.0}, std::tuple{"t5:16", true, 16.0}, std::tuple{"t5:2", true, 2.0},
          std::tuple{"t5:255", true, 255.0}}) {
        INFO(text);
        const PositionSpec spec = parse_position_spec(text);
        CHECK(spec.kind == PositionSpec::Kind::t5);
        CHECK(spec.has_value == has_value);
        if (has_value) CHECK(spec.value == value);
        Generator generator(13);
        CHECK(make_position_encoding(spec, 8, 2, generator)->spec() == text);
    }
    for (const char* text : {"t5:0", "t5:1", "t5:256", "t5:1000", "t5:-3", "t5:1.5", "t5:abc", "t5:", "t5:032",
                             "t5:1e1", "t5:+8", "T5", "t5:32:1"}) {
        INFO("'" << text << "'");
        CHECK_THROWS_AS(parse_position_spec(text), std::invalid_argument);
        CHECK_THROWS_WITH(parse_position_spec(text), ContainsSubstring(position_spec_forms));
    }
    CHECK_THAT(std::string(position_spec_forms), ContainsSubstring("t5[:buckets]"));
}

TEST_CASE("a tiny run_experiment with t5 on both tasks gives a valid result line", "[t5][tasks]") {
    for (const char* task : {"lag", "seen"}) check_tiny_run(task, "t5");
}
