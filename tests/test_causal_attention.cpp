// Tests of the fused causal attention op: a hand example, agreement with the chain of plain ops it
// replaces (values, softmax weights, and the gradients of q, k, v and a learned bias) over one head,
// several heads, a scale, T = 1 and sizes large enough for the OpenMP path, a full-Jacobian
// gradcheck, the no-gradient path, and its shape errors. Leaves out the layer around it (test_nn.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "autograd/ops.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::Contains;

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

TEST_CASE("causal_attention by hand: T = 2, H = 1", "[autograd][causal_attention]") {
    // q = (1, 2), k = (0, ln 3), v = (10, 20), scale 1: query 0 sees key 0 only; query 1 scores
    // keys 0 and 1 as 0 and 2 ln 3, weights 1/10 and 9/10, so it reads 0.1 * 10 + 0.9 * 20 = 19.
    const Value q(Tensor::from_values(Shape{2, 1}, {1, 2}));
    const Value k(Tensor::from_values(Shape{2, 1}, {0, std::log(3.0f)}));
    const Value v(Tensor::from_values(Shape{2, 1}, {10, 20}));
    Tensor weights;
    check_close(causal_attention(q, k, v, Value(), 1.0f, &weights).value(), Tensor::from_values(Shape{2, 1}, {10, 19}));
    check_close(weights, Tensor::from_values(Shape{2, 2}, {1, 0, 0.1f, 0.9f}));
}

TEST_CASE("causal_attention equals the chain of plain ops, values and gradients", "[autograd][causal_attention]") {
    uint64_t seed = 300;
    for (const Case& c : cases) {
        INFO(c.qkv.str() << " bias " << c.bias.str() << " scale " << c.scale);
        const Inputs fused = make_inputs(c, seed), plain = make_inputs(c, seed);
        seed += 10;
        Tensor fused_weights, plain_weights;
        Value y = causal_attention(fused.q, fused.k, fused.v, fused.bias, c.scale, &fused_weights);
        Value y_plain = causal_attention_reference(plain.q, plain.k, plain.v, plain.bias, c.scale, &plain_weights);
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

TEST_CASE("causal_attention gradients check against finite differences", "[autograd][causal_attention]") {
    uint64_t seed = 400;
    for (const Case& c : {cases[0], cases[1], cases[2], cases[3]}) {
        INFO(c.qkv.str() << " bias " << c.bias.str());
        const Inputs in = make_inputs(c, seed += 10);
        std::vector<Value> inputs{in.q, in.k, in.v};
        if (in.bias.defined()) inputs.push_back(in.bias);
        const float scale = c.scale;
        check_gradients(
            [scale](const std::vector<Value>& x) {
                return causal_attention(x[0], x[1], x[2], x.size() > 3 ? x[3] : Value(), scale);
            },
            inputs, GradcheckOptions{});
    }
}

TEST_CASE("causal_attention without gradients gives the same numbers", "[autograd][causal_attention]") {
    for (const Case& c : cases) {
        INFO(c.qkv.str());
        const Inputs in = make_inputs(c, 500);
        const Tensor with_graph = causal_attention(in.q, in.k, in.v, in.bias, c.scale).value();
        NoGradScope no_grad;  // one (T, T) buffer per thread instead of every slice's weights
        const Value y = causal_attention(in.q, in.k, in.v, in.bias, c.scale);
        CHECK(numbers(y.value()) == numbers(with_graph));
        CHECK(y.is_leaf());
    }
}

TEST_CASE("causal_attention refuses mismatched shapes", "[autograd][causal_attention]") {
    const Value q(Tensor(Shape{2, 3, 4})), k(Tensor(Shape{2, 3, 4}));
    CHECK_THAT(invalid_argument_message([&] { causal_attention(q, k, Value(Tensor(Shape{2, 3, 5})), Value(), 1.0f); }),
               Contains("expects q, k and v of one shape (..., T, H)"));
    CHECK_THROWS_AS(causal_attention(Value(Tensor(Shape{4})), Value(Tensor(Shape{4})), Value(Tensor(Shape{4})), Value(), 1.0f),
                    std::invalid_argument);
    // The bias must be a trailing shape of the scores (2, 3, 3).
    CHECK_THROWS_AS(causal_attention(q, k, q, Value(Tensor(Shape{3, 4})), 1.0f), std::invalid_argument);
    CHECK_THROWS_AS(causal_attention(q, k, q, Value(Tensor(Shape{2, 2, 3, 3})), 1.0f), std::invalid_argument);
}
