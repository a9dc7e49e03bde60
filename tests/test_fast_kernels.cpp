// Tests of the fast kernels (fast/, fast/), each against the plain ops it replaces:
// the same values and gradients within float rounding, and a full-Jacobian gradcheck of its own.
// The fused causal attention gets a hand example, one head, several heads, a scale, T = 1 and sizes
// large enough for its OpenMP path, RoPE'd inputs at the chapter's head size, the no-gradient path
// and its shape errors. Leaves out the whole model on both paths (test_kernels_choice.cpp).
#include "tests/catch.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fast/fast_ops.hpp"
#include "nn/attention.hpp"
#include "fast/rope.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

struct Case {
    Shape qkv;       // (..., T, H)
    Shape bias;      // empty rank for no bias
    float scale;
};

const std::vector<Case> cases{
    {Shape{3, 5, 4}, Shape{}, 0.5f},            // one head, no bias
    {Shape{2, 6, 4}, Shape{6, 6}, 1.0f},        // one head, a bias that learns
    {Shape{2, 3, 4, 8}, Shape{3, 4, 4}, 0.37f},  // three heads, a bias per head
    {Shape{2, 1, 3}, Shape{1, 1}, 2.0f},        // T = 1: every query sees only itself
    {Shape{16, 32, 16}, Shape{}, 0.25f},        // enough work for the OpenMP loop over slices
};

struct Inputs {
    Value q, k, v, bias;
};

Inputs make_inputs(const Case& c, uint64_t seed) {
    Inputs in{parameter(c.qkv, seed), parameter(c.qkv, seed + 1), parameter(c.qkv, seed + 2), Value()};
    if (c.bias.rank() > 0) in.bias = parameter(c.bias, seed + 3);
    return in;
}

}  // namespace

TEST_CASE("causal_attention by hand: T = 2, H = 1", "[fast][causal_attention]") {
    // q = (1, 2), k = (0, ln 3), v = (10, 20), scale 1: query 0 sees key 0 only; query 1 scores
    // keys 0 and 1 as 0 and 2 ln 3, weights 1/10 and 9/10, so it reads 0.1 * 10 + 0.9 * 20 = 19.
    const Value q(Tensor::from_values(Shape{2, 1}, {1, 2}));
    const Value k(Tensor::from_values(Shape{2, 1}, {0, std::log(3.0f)}));
    const Value v(Tensor::from_values(Shape{2, 1}, {10, 20}));
    Tensor weights;
    check_close(fast::causal_attention(q, k, v, Value(), 1.0f, &weights).value(), Tensor::from_values(Shape{2, 1}, {10, 19}));
    check_close(weights, Tensor::from_values(Shape{2, 2}, {1, 0, 0.1f, 0.9f}));
}

TEST_CASE("causal_attention equals the chain of plain ops, values and gradients", "[fast][causal_attention]") {
    uint64_t seed = 300;
    for (const Case& c : cases) {
        INFO(c.qkv.str() << " bias " << c.bias.str() << " scale " << c.scale);
        const Inputs fused = make_inputs(c, seed), plain = make_inputs(c, seed);
        seed += 10;
        Tensor fused_weights, plain_weights;
        Value y = fast::causal_attention(fused.q, fused.k, fused.v, fused.bias, c.scale, &fused_weights);
        Value y_plain = attention(plain.q, plain.k, plain.v, plain.bias, c.scale, &plain_weights);
        check_close(y.value(), y_plain.value());
        check_close(fused_weights, plain_weights);

        const Tensor seed_gradient = random_tensor(c.qkv, seed);
        y.backward(seed_gradient);
        y_plain.backward(seed_gradient);
        check_close(fused.q.grad(), plain.q.grad(), 1e-5, 1e-5);
        check_close(fused.k.grad(), plain.k.grad(), 1e-5, 1e-5);
        check_close(fused.v.grad(), plain.v.grad(), 1e-5, 1e-5);
        if (c.bias.rank() > 0) check_close(fused.bias.grad(), plain.bias.grad(), 1e-5, 1e-5);
    }
}

TEST_CASE("causal_attention gradients check against finite differences", "[fast][causal_attention]") {
    uint64_t seed = 400;
    for (const Case& c : {cases[0], cases[1], cases[2], cases[3]}) {
        INFO(c.qkv.str() << " bias " << c.bias.str());
        const Inputs in = make_inputs(c, seed += 10);
        std::vector<Value> inputs{in.q, in.k, in.v};
        if (in.bias.defined()) inputs.push_back(in.bias);
        const float scale = c.scale;
        check_gradients(
            [scale](const std::vector<Value>& x) {
                return fast::causal_attention(x[0], x[1], x[2], x.size() > 3 ? x[3] : Value(), scale);
            },
            inputs, GradcheckOptions{});
    }
}

TEST_CASE("causal_attention through RoPE at the chapter's head gives the plain chain's gradients", "[fast][causal_attention][rope]") {
    // q, k, v (T, H) = (6, 8) drawn in that order from Generator(5); the sum of
    // softmax(rope(q) rope(k)^T / sqrt(H), causal) v, fused and as the chain of plain ops.
    const RopeTable table = make_rope_table(6, rope_frequencies(8, 10000.0), RopePairing::interleaved);
    const float factor = 1.0f / std::sqrt(8.0f);
    Generator generator(5);
    std::vector<Value> plain, fused;
    for (int i = 0; i < 3; ++i) {
        const Tensor x = Tensor::normal(Shape{6, 8}, 0.0f, 1.0f, generator);  // (T, H)
        plain.emplace_back(x, true);
        fused.emplace_back(x, true);
    }
    sum(attention(rope(plain[0], table), rope(plain[1], table), plain[2], Value(), factor)).backward();
    sum(fast::causal_attention(rope(fused[0], table), rope(fused[1], table), fused[2], Value(), factor)).backward();
    double largest_difference = 0.0;
    for (int input = 0; input < 3; ++input)
        for (int64_t i = 0; i < 6 * 8; ++i)
            largest_difference = std::max(largest_difference,
                                          std::abs(double(plain[input].grad()[i]) - double(fused[input].grad()[i])));
    INFO("largest gradient difference " << largest_difference);
    CHECK(largest_difference <= 1e-5);
}

TEST_CASE("causal_attention without gradients gives the same numbers", "[fast][causal_attention]") {
    for (const Case& c : cases) {
        INFO(c.qkv.str());
        const Inputs in = make_inputs(c, 500);
        const Tensor with_graph = fast::causal_attention(in.q, in.k, in.v, in.bias, c.scale).value();
        NoGradScope no_grad;  // one (T, T) buffer per thread instead of every slice's weights
        const Value y = fast::causal_attention(in.q, in.k, in.v, in.bias, c.scale);
        CHECK(numbers(y.value()) == numbers(with_graph));
        CHECK(y.is_leaf());
    }
}

TEST_CASE("causal_attention refuses mismatched shapes", "[fast][causal_attention]") {
    const Value q(Tensor(Shape{2, 3, 4})), k(Tensor(Shape{2, 3, 4}));
    CHECK_THAT(invalid_argument_message([&] { fast::causal_attention(q, k, Value(Tensor(Shape{2, 3, 5})), Value(), 1.0f); }),
               ContainsSubstring("expects q, k and v of one shape (..., T, H)"));
    CHECK_THROWS_AS(fast::causal_attention(Value(Tensor(Shape{4})), Value(Tensor(Shape{4})), Value(Tensor(Shape{4})), Value(), 1.0f),
                    std::invalid_argument);
    // The bias must be a trailing shape of the scores (2, 3, 3).
    CHECK_THROWS_AS(fast::causal_attention(q, k, q, Value(Tensor(Shape{3, 4})), 1.0f), std::invalid_argument);
    CHECK_THROWS_AS(fast::causal_attention(q, k, q, Value(Tensor(Shape{2, 2, 3, 3})), 1.0f), std::invalid_argument);
}

TEST_CASE("fast::linear_split equals linear then split_last, and its gradients check", "[fast][linear]") {
    Generator g(22);
    Value x(Tensor::normal({2, 3, 4}, 0, 1, g), true), w(Tensor::normal({6, 4}, 0, 1, g), true),
        b(Tensor::normal({6}, 0, 1, g), true);
    const std::vector<Value> plain = split_last(linear(x, w, b), 3);
    const std::vector<Value> fast_parts = fast::linear_split(x, w, b, 3);
    REQUIRE(fast_parts.size() == 3);
    for (int part = 0; part < 3; ++part) check_close(fast_parts[part].value(), plain[part].value());
    // The three parts together, as attention uses them; default gradcheck tolerances.
    check_gradients(
        [](const std::vector<Value>& in) {
            const std::vector<Value> p = fast::linear_split(in[0], in[1], in[2], 3);
            return add(add(p[0], scale(p[1], 2.0f)), multiply(p[2], p[2]));
        },
        {x, w, b}, default_tolerance);
    CHECK_THROWS_WITH(fast::linear_split(x, w, b, 4), ContainsSubstring("linear_split") && ContainsSubstring("(6, 4)"));
    CHECK_THROWS_WITH(fast::linear_split(x, Value(Tensor(Shape{6, 5})), b, 3), ContainsSubstring("linear_split"));
}

// The value and every input's gradient of f and g on copies of the same inputs, under one seed gradient.
static void check_same_as_plain(const Function& fast_form, const Function& plain_form, const std::vector<Shape>& shapes,
                                uint64_t seed) {
    std::vector<Value> a, b;
    for (size_t i = 0; i < shapes.size(); ++i) {
        a.push_back(parameter(shapes[i], seed + i));
        b.push_back(parameter(shapes[i], seed + i));
    }
    Value y_fast = fast_form(a), y_plain = plain_form(b);
    check_close(y_fast.value(), y_plain.value());
    const Tensor seed_gradient = random_tensor(y_plain.shape(), seed + 100);
    y_fast.backward(seed_gradient);
    y_plain.backward(seed_gradient);
    for (size_t i = 0; i < shapes.size(); ++i) {
        INFO("input " << i);
        check_close(a[i].grad(), b[i].grad(), 1e-5, 1e-5);
    }
    check_gradients(fast_form, a, default_tolerance);
}

TEST_CASE("fast::linear_gelu equals linear then gelu, values and gradients", "[fast][gelu][linear]") {
    const auto fused = [](const std::vector<Value>& in) { return fast::linear_gelu(in[0], in[1], in[2]); };
    const auto plain = [](const std::vector<Value>& in) { return gelu(linear(in[0], in[1], in[2])); };
    check_same_as_plain(fused, plain, {Shape{2, 3, 5}, Shape{6, 5}, Shape{6}}, 45);

    // Enough elements for the passes to run on threads: the plain numbers on 1 thread and on 2.
    const std::vector<Shape> big{Shape{300, 8}, Shape{256, 8}, Shape{256}};
    const Tensor seed_gradient = random_tensor(Shape{300, 256}, 47);
    const int threads_before = omp_get_max_threads();
    for (const int threads : {1, 2}) {
        omp_set_num_threads(threads);
        std::vector<Value> a, b;
        for (size_t i = 0; i < big.size(); ++i) a.push_back(parameter(big[i], 46 + i)), b.push_back(parameter(big[i], 46 + i));
        Value y = fused(a), y_plain = plain(b);
        check_close(y.value(), y_plain.value());
        y.backward(seed_gradient);
        y_plain.backward(seed_gradient);
        for (size_t i = 0; i < big.size(); ++i) {
            INFO(threads << " threads, input " << i);
            check_close(a[i].grad(), b[i].grad(), 1e-5, 1e-5);
        }
    }
    omp_set_num_threads(threads_before);

    NoGradScope no_grad;  // no slope kept, the same numbers
    const Value x = parameter(Shape{4, 3}, 48), w = parameter(Shape{5, 3}, 49), b = parameter(Shape{5}, 50);
    check_close(fast::linear_gelu(x, w, b).value(), gelu(linear(x, w, b)).value());
    CHECK_THROWS_WITH(fast::linear_gelu(x, Value(Tensor(Shape{5, 4})), b),
                      ContainsSubstring("linear_gelu") && ContainsSubstring("(4, 3) x (5, 4)T + (5)"));
}

TEST_CASE("fast::linear_onto equals add then linear, values and gradients", "[fast][linear]") {
    const auto fused = [](const std::vector<Value>& in) { return fast::linear_onto(in[0], in[1], in[2], in[3]); };
    const auto plain = [](const std::vector<Value>& in) { return add(in[0], linear(in[1], in[2], in[3])); };
    check_same_as_plain(fused, plain, {Shape{2, 3, 6}, Shape{2, 3, 5}, Shape{6, 5}, Shape{6}}, 55);
    // The residual's share is the incoming gradient itself: with the residual also read elsewhere
    // (as a block's input is, by its LayerNorm), both shares add up.
    check_same_as_plain([&](const std::vector<Value>& in) { return multiply(in[0], fused(in)); },
                        [&](const std::vector<Value>& in) { return multiply(in[0], plain(in)); },
                        {Shape{4, 6}, Shape{4, 5}, Shape{6, 5}, Shape{6}}, 56);
    // The residual and the layer's input one and the same value.
    check_same_as_plain([](const std::vector<Value>& in) { return fast::linear_onto(in[0], in[0], in[1], in[2]); },
                        [](const std::vector<Value>& in) { return add(in[0], linear(in[0], in[1], in[2])); },
                        {Shape{3, 4}, Shape{4, 4}, Shape{4}}, 57);

    const Value residual = parameter(Shape{4, 6}, 58), x = parameter(Shape{4, 5}, 59);
    const Value w = parameter(Shape{6, 5}, 60), b = parameter(Shape{6}, 61);
    CHECK_THROWS_WITH(fast::linear_onto(parameter(Shape{4, 5}, 62), x, w, b),
                      ContainsSubstring("linear_onto") && ContainsSubstring("(4, 5) + (4, 5) x (6, 5)T + (6)"));
    CHECK_THROWS_WITH(fast::linear_onto(residual, x, Value(Tensor(Shape{6, 4})), b), ContainsSubstring("linear_onto"));
}

// Gradients add up over backward passes (gradient accumulation): a second backward adds each
// parameter's share onto what the first left, as the plain ops do, share made from zero and added
// once. A fast op that added row by row, or let a gemm accumulate, straight onto a gradient already
// holding something rounded against that sum throughout: after ten passes of 4096 rows a bias
// gradient stood 4 times as far from the exact sum as the plain op's. Checked to the bit: after two
// passes, the first pass's gradient plus the second pass's share made alone on fresh copies.
TEST_CASE("fast ops add a second backward's parameter gradients onto the first's as plain ops do", "[fast][linear][layer_norm]") {
    const auto adds_once = [](const char* name, const Function& fast_form, const std::vector<Shape>& shapes,
                              const std::vector<int>& checked, uint64_t seed) {
        INFO(name);
        std::vector<Value> twice, once;
        for (size_t i = 0; i < shapes.size(); ++i)
            twice.push_back(parameter(shapes[i], seed + i)), once.push_back(parameter(shapes[i], seed + i));
        const Shape out = fast_form(twice).shape();
        fast_form(twice).backward(random_tensor(out, seed + 100));
        std::vector<Tensor> first;
        for (const Value& v : twice) first.push_back(v.grad());  // copies
        fast_form(twice).backward(random_tensor(out, seed + 101));
        fast_form(once).backward(random_tensor(out, seed + 101));
        for (const int i : checked) {
            INFO("input " << i);
            Tensor expected = first[i];
            for (int64_t e = 0; e < expected.numel(); ++e) expected[e] += once[i].grad()[e];
            CHECK(numbers(twice[i].grad()) == numbers(expected));
        }
    };
    adds_once("linear_onto", [](const std::vector<Value>& in) { return fast::linear_onto(in[0], in[1], in[2], in[3]); },
              {Shape{4096, 64}, Shape{4096, 8}, Shape{64, 8}, Shape{64}}, {0, 1, 2, 3}, 70);
    adds_once("linear_gelu", [](const std::vector<Value>& in) { return fast::linear_gelu(in[0], in[1], in[2]); },
              {Shape{4096, 8}, Shape{64, 8}, Shape{64}}, {0, 1, 2}, 80);
    // x's gradient takes each part's product in turn (the op's design); the parameters' rows, once each.
    adds_once("linear_split",
              [](const std::vector<Value>& in) {
                  const std::vector<Value> p = fast::linear_split(in[0], in[1], in[2], 2);
                  return add(p[0], scale(p[1], 2.0f));
              },
              {Shape{4096, 8}, Shape{64, 8}, Shape{64}}, {1, 2}, 90);
    adds_once("layer_norm", [](const std::vector<Value>& in) { return fast::layer_norm(in[0], in[1], in[2]); },
              {Shape{4096, 64}, Shape{64}, Shape{64}}, {1, 2}, 100);
}

// x with no columns (in = 0): every output is the bias alone, on both paths, and no crash (a row
// count of numel / last once divided by zero here).
TEST_CASE("a Linear of zero input width gives the bias, plain and fast", "[fast][linear]") {
    const Value x(Tensor(Shape{3, 0}), true), w(Tensor(Shape{4, 0}), true), b = parameter(Shape{4}, 120);
    const Value r = parameter(Shape{3, 4}, 121);
    CHECK(Shape{3, 0}.rows() == 3);
    const Tensor plain = linear(x, w, b).value();
    for (int64_t row = 0; row < 3; ++row)
        for (int64_t j = 0; j < 4; ++j) CHECK(plain[row * 4 + j] == b.value()[j]);
    check_close(fast::linear_gelu(x, w, b).value(), gelu(linear(x, w, b)).value());
    check_close(fast::linear_onto(r, x, w, b).value(), add(r, linear(x, w, b)).value());
    Value y = fast::linear_onto(r, x, w, b);
    y.backward(random_tensor(Shape{3, 4}, 122));
    CHECK(x.grad().numel() == 0);
    CHECK(w.grad().numel() == 0);
}

TEST_CASE("fast::layer_norm equals layer_norm, alone and onto a residual's gradient", "[fast][layer_norm]") {
    const std::vector<Shape> shapes{Shape{2, 3, 5}, Shape{5}, Shape{5}};
    check_same_as_plain([](const std::vector<Value>& in) { return fast::layer_norm(in[0], in[1], in[2]); },
                        [](const std::vector<Value>& in) { return layer_norm(in[0], in[1], in[2]); }, shapes, 50);
    // x also feeds a residual sum whose backward runs first: the fast backward adds onto x's gradient.
    check_same_as_plain([](const std::vector<Value>& in) { return add(in[0], fast::layer_norm(in[0], in[1], in[2])); },
                        [](const std::vector<Value>& in) { return add(in[0], layer_norm(in[0], in[1], in[2])); }, shapes,
                        60);
    CHECK_THROWS_WITH(fast::layer_norm(Value(Tensor(Shape{2, 4})), Value(Tensor(Shape{3})), Value(Tensor(Shape{3}))),
                      ContainsSubstring("layer_norm") && ContainsSubstring("weight and bias must both be (D)"));
}

TEST_CASE("fast::rope equals rope, both pairings, values and gradients", "[fast][rope]") {
    for (const RopePairing pairing : {RopePairing::interleaved, RopePairing::half_split}) {
        const RopeTable table = make_rope_table(6, rope_frequencies(8, 10000.0), pairing);
        check_same_as_plain([&](const std::vector<Value>& in) { return fast::rope(in[0], table); },
                            [&](const std::vector<Value>& in) { return rope(in[0], table); }, {Shape{2, 6, 8}}, 70);
    }
}
