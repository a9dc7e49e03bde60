// Tests of nn/: for every layer (Linear, Embedding, LayerNorm, MLP, CausalSelfAttention with 1 and
// 2 heads, Block, Transformer) the output shape, a full-Jacobian gradcheck of the whole layer with
// respect to its input and every parameter, and one property; then AdamW and the sequence loss.
// Leaves out the autograd ops themselves (tests/test_autograd*.cpp) and the position schemes
// (tests/test_positional.cpp): every layer here uses the "none" scheme.
#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "autograd/ops.hpp"
#include "nn/adamw.hpp"
#include "autograd/ops.hpp"
#include "nn/transformer.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;

namespace {

// Gradcheck of a whole layer: gradcheck's inputs are `leading` (x, if it has one) followed by the
// module's own parameter handles. A Value is a shallow handle, so when gradcheck nudges inputs[k] it
// nudges the very tensor the module's forward reads, and inputs[k].grad() is the gradient backward
// left in that parameter. The wrapper checks that the handles it is given are still those parameters;
// and were the wiring not real, every numeric derivative would be 0 and the check would fail.
void check_module_gradients(const Module& module, std::vector<Value> leading, const Function& forward) {
    const std::vector<Value> parameters = module.parameters();
    const size_t first_parameter = leading.size();
    std::vector<Value> inputs = leading;
    inputs.insert(inputs.end(), parameters.begin(), parameters.end());
    const Function f = [&](const std::vector<Value>& in) {
        for (size_t k = 0; k < parameters.size(); ++k)
            if (in[first_parameter + k].node() != parameters[k].node())
                throw std::logic_error("gradcheck input is not the module's parameter");
        return forward(in);
    };
    const GradcheckResult result = gradcheck(f, inputs, default_tolerance);
    int64_t input_numbers = 0;
    for (const Value& v : inputs) input_numbers += v.value().numel();
    INFO("worst entry: " << result.worst << " (abs error " << result.max_abs_error << ")");
    CHECK(result.entries == forward(inputs).value().numel() * input_numbers);  // the whole Jacobian
    CHECK(result.passed);
}

// uniform(-1, 1) numbers; requires_grad so gradcheck differentiates with respect to them.
Value random_input(const Shape& shape, uint64_t seed) {
    Generator generator(seed);
    return Value(Tensor::uniform(shape, -1.0f, 1.0f, generator), true);
}

// Overwrites a parameter with uniform(low, high) numbers, so a check does not rest on its init.
void randomise(Value& parameter, uint64_t seed, float low = -1.0f, float high = 1.0f) {
    Generator generator(seed);
    parameter.value() = Tensor::uniform(parameter.shape(), low, high, generator);
}

std::vector<std::string> names_of(const Module& module) {
    std::vector<std::string> names;
    for (const auto& [name, value] : module.named_parameters()) names.push_back(name);
    return names;
}

}  // namespace

TEST_CASE("Linear: shape, gradients, and init within +-1/sqrt(fan_in)", "[nn][linear]") {
    Generator generator(1);
    Linear linear(4, 3, generator);
    const Value x = random_input(Shape{2, 3, 4}, 2);  // (B, T, in)
    CHECK(linear.forward(x).shape() == Shape{2, 3, 3});
    CHECK(names_of(linear) == std::vector<std::string>{"weight", "bias"});
    check_module_gradients(linear, {x}, [&](const std::vector<Value>& in) { return linear.forward(in[0]); });

    // PyTorch's default: weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = 64 here.
    Linear wide(64, 32, generator);
    const float bound = 1.0f / 8.0f;
    float largest = 0.0f;
    for (const Value& p : {wide.weight, wide.bias})
        for (int64_t i = 0; i < p.value().numel(); ++i) {
            CHECK(std::abs(p.value()[i]) <= bound);
            largest = std::max(largest, std::abs(p.value()[i]));
        }
    CHECK(largest > 0.9f * bound);  // the whole range is used, not a narrower one
}

TEST_CASE("Embedding: shape, gradient of the table, repeated tokens give identical rows", "[nn][embedding]") {
    Generator generator(3);
    Embedding embedding(5, 4, generator);
    const std::vector<int> ids{2, 0, 2, 4, 2, 1};  // (B=2, T=3), token 2 three times
    const Value out = embedding.forward(ids, Shape{2, 3});
    REQUIRE(out.shape() == Shape{2, 3, 4});
    // The table is the only differentiable input: token ids are not numbers to nudge.
    check_module_gradients(embedding, {}, [&](const std::vector<Value>&) { return embedding.forward(ids, Shape{2, 3}); });

    for (int64_t position : {0, 2, 4})
        for (int64_t c = 0; c < 4; ++c) CHECK(out.value()[position * 4 + c] == embedding.table.value()[2 * 4 + c]);
}

TEST_CASE("LayerNorm: shape, gradients, and rows of mean 0 and variance 1", "[nn][layer_norm]") {
    LayerNorm norm(4);
    randomise(norm.weight, 4, 0.5f, 1.5f);  // gradients through a weight and bias that are not 1 and 0
    randomise(norm.bias, 5);
    const Value x = random_input(Shape{2, 3, 4}, 6);
    CHECK(norm.forward(x).shape() == Shape{2, 3, 4});
    check_module_gradients(norm, {x}, [&](const std::vector<Value>& in) { return norm.forward(in[0]); });

    // With weight 1 and bias 0 (the init) each row comes out with mean 0 and biased variance 1
    // (exactly v / (v + eps) for a row of variance v, here v is about 25).
    LayerNorm fresh(16);
    Generator generator(7);
    const Value rows(Tensor::normal(Shape{3, 16}, 3.0f, 5.0f, generator));
    const Tensor y = fresh.forward(rows).value();
    for (int64_t r = 0; r < 3; ++r) {
        double mean = 0.0, variance = 0.0;
        for (int64_t c = 0; c < 16; ++c) mean += y[r * 16 + c] / 16.0;
        for (int64_t c = 0; c < 16; ++c) variance += (y[r * 16 + c] - mean) * (y[r * 16 + c] - mean) / 16.0;
        CHECK(mean == Approx(0.0).margin(1e-6));
        CHECK(variance == Approx(1.0).margin(1e-4));
    }
}

TEST_CASE("MLP: shape, gradients, and each position computed on its own", "[nn][mlp]") {
    Generator generator(8);
    MLP mlp(4, 8, generator);
    const Value x = random_input(Shape{2, 3, 4}, 9);
    const Tensor out = mlp.forward(x).value();
    CHECK(out.shape() == Shape{2, 3, 4});
    check_module_gradients(mlp, {x}, [&](const std::vector<Value>& in) { return mlp.forward(in[0]); });

    // Position-wise: row (b, t) of the output is the MLP of row (b, t) of the input alone.
    for (int64_t row = 0; row < 6; ++row) {
        const Value alone(Tensor::from_values(Shape{1, 1, 4}, std::vector<float>(x.value().data() + row * 4,
                                                                                   x.value().data() + row * 4 + 4)));
        const Tensor y = mlp.forward(alone).value();
        for (int64_t c = 0; c < 4; ++c) CHECK(y[c] == Approx(out[row * 4 + c]).epsilon(1e-5).margin(1e-6));
    }
}

TEST_CASE("CausalSelfAttention, 1 and 2 heads: shape, gradients, causality", "[nn][attention]") {
    const PositionEncoding none;
    for (int64_t heads : {1, 2}) {
        INFO(heads << " head(s)");
        Generator generator(10 + heads);
        CausalSelfAttention attention(4, heads, none, generator);
        CHECK(attention.head_dim == 4 / heads);
        const Value x = random_input(Shape{2, 3, 4}, 12);  // (B=2, T=3, D=4)
        CHECK(attention.forward(x).shape() == Shape{2, 3, 4});
        check_module_gradients(attention, {x}, [&](const std::vector<Value>& in) { return attention.forward(in[0]); });

        // Causality: changing the tokens after position 2 leaves positions 0..2 alone, and changing
        // position 4 does change position 4 (so the comparison is not vacuous).
        CausalSelfAttention wider(8, heads, none, generator);
        const Value before = random_input(Shape{1, 5, 8}, 13);
        Value after(before.value());
        for (int64_t i = 3 * 8; i < 5 * 8; ++i) after.value()[i] += 1.0f;
        const Tensor y0 = wider.forward(before).value(), y1 = wider.forward(after).value();
        double change_before_3 = 0.0, change_at_4 = 0.0;
        for (int64_t i = 0; i < 3 * 8; ++i) change_before_3 = std::max(change_before_3, double(std::abs(y1[i] - y0[i])));
        for (int64_t i = 4 * 8; i < 5 * 8; ++i) change_at_4 = std::max(change_at_4, double(std::abs(y1[i] - y0[i])));
        CHECK(change_before_3 <= 1e-6);
        CHECK(change_at_4 > 1e-3);
    }
}

TEST_CASE("CausalSelfAttention refuses heads that do not divide the width", "[nn][attention]") {
    const PositionEncoding none;
    Generator generator(14);
    CHECK_THROWS_WITH(CausalSelfAttention(6, 4, none, generator),
                      Catch::Matchers::ContainsSubstring("4 heads do not divide the width 6"));
}

TEST_CASE("Block: shape, gradients, and an identity when both branches output zero", "[nn][block]") {
    const PositionEncoding none;
    Generator generator(15);
    Block block(4, 2, 8, none, generator);
    const Value x = random_input(Shape{2, 3, 4}, 16);
    CHECK(block.forward(x).shape() == Shape{2, 3, 4});
    check_module_gradients(block, {x}, [&](const std::vector<Value>& in) { return block.forward(in[0]); });

    // Pre-LN residual wiring: with the last Linear of each branch zeroed, x passes through unchanged.
    for (Value* p : {&block.attention.output.weight, &block.attention.output.bias, &block.mlp.project.weight,
                     &block.mlp.project.bias})
        p->value().fill(0.0f);
    const Tensor y = block.forward(x).value();
    for (int64_t i = 0; i < y.numel(); ++i) CHECK(y[i] == x.value()[i]);
}

TEST_CASE("Transformer: shape and gradients of every parameter", "[nn][transformer]") {
    TransformerConfig config;
    config.vocab = 5, config.outputs = 3, config.dim = 4, config.layers = 2, config.heads = 2, config.mlp_hidden = 8;
    Generator generator(17);
    Transformer model(config, std::make_unique<PositionEncoding>(), generator);
    const std::vector<int> ids{0, 3, 1, 4, 4, 2};  // (B=2, T=3)
    CHECK(model.forward(ids, 2, 3).shape() == Shape{2, 3, 3});
    check_module_gradients(model, {}, [&](const std::vector<Value>&) { return model.forward(ids, 2, 3); });
}

TEST_CASE("Transformer: named_parameters in a fixed order with dotted names", "[nn][transformer][module]") {
    TransformerConfig config;
    config.vocab = 5, config.outputs = 3, config.dim = 4, config.layers = 2, config.heads = 1, config.mlp_hidden = 8;
    Generator generator(18);
    Transformer model(config, std::make_unique<PositionEncoding>(), generator);
    std::vector<std::string> expected{"tokens.weight"};
    for (const std::string block : {"blocks.0.", "blocks.1."})
        for (const char* name : {"norm1.weight", "norm1.bias", "attention.qkv.weight", "attention.qkv.bias",
                                 "attention.output.weight", "attention.output.bias", "norm2.weight", "norm2.bias",
                                 "mlp.expand.weight", "mlp.expand.bias", "mlp.project.weight", "mlp.project.bias"})
            expected.push_back(block + name);
    expected.push_back("head.weight");
    expected.push_back("head.bias");
    CHECK(names_of(model) == expected);

    const auto named = model.named_parameters();
    CHECK(named[0].second.shape() == Shape{5, 4});   // tokens (V, D)
    CHECK(named[3].second.shape() == Shape{12, 4});  // blocks.0.attention.qkv.weight (3D, D)
    CHECK(named.back().second.shape() == Shape{3});  // head.bias (n_out)
    // 5*4 tokens; per block 2*4*2 norms + (12*4+12) qkv + (4*4+4) output + (8*4+8 + 4*8+4) MLP; 4*3+3 head.
    CHECK(model.parameter_count() == 20 + 2 * (16 + 60 + 20 + 76) + 15);
}

TEST_CASE("Module::zero_grad zeroes every parameter's gradient", "[nn][module]") {
    TransformerConfig config;
    config.vocab = 5, config.outputs = 3, config.dim = 4, config.layers = 1, config.heads = 1, config.mlp_hidden = 8;
    Generator generator(19);
    Transformer model(config, std::make_unique<PositionEncoding>(), generator);
    cross_entropy(model.forward({0, 1, 2, 3}, 1, 4), {0, 1, 2, 0}).backward();
    double total = 0.0;
    for (const Value& p : model.parameters())
        for (int64_t i = 0; i < p.grad().numel(); ++i) total += std::abs(p.grad()[i]);
    CHECK(total > 0.0);
    model.zero_grad();
    for (const auto& [name, p] : model.named_parameters()) {
        INFO(name);
        for (int64_t i = 0; i < p.grad().numel(); ++i) CHECK(p.grad()[i] == 0.0f);
    }
}

TEST_CASE("AdamW: one and two steps match PyTorch's formula worked by hand", "[nn][adamw]") {
    // PyTorch's AdamW, per element, at step s: p *= 1 - lr*wd; m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
    // p -= (lr / (1 - b1^s)) * m / (sqrt(v) / sqrt(1 - b2^s) + eps).
    // lr 0.1 and wd 0.1 (b1 0.9, b2 0.999, eps 1e-8) so both parts of the update are large.
    AdamWConfig config;
    CHECK(config.lr == 1e-3f);  // the defaults are the chapter's
    CHECK(config.beta1 == 0.9f);
    CHECK(config.beta2 == 0.999f);
    CHECK(config.eps == 1e-8f);
    CHECK(config.weight_decay == 0.01f);
    config.lr = 0.1f;
    config.weight_decay = 0.1f;

    Value p(Tensor::from_values(Shape{2}, {1.0f, -2.0f}), true);
    Value untouched(Tensor::from_values(Shape{1}, {3.0f}), true);  // never gets a gradient
    AdamW optimizer({p, untouched}, config);

    // Step 1, g = (0.5, -0.25): decay gives (0.99, -1.98); m-hat = g and sqrt(v-hat) = |g|, so
    // each number moves by lr * g / (|g| + 1e-8) = 0.1 against its gradient's sign: (0.89, -1.88).
    p.grad_buffer() = Tensor::from_values(Shape{2}, {0.5f, -0.25f});
    optimizer.step();
    CHECK(p.value()[0] == Approx(0.890000002).margin(1e-6));
    CHECK(p.value()[1] == Approx(-1.880000004).margin(1e-6));

    // Step 2, g = (-1, 0.1). First number: decay 0.89 * 0.99 = 0.8811; m = 0.9*0.05 - 0.1 = -0.055;
    // v = 0.999*0.00025 + 0.001 = 0.00124975; m-hat = -0.055/0.19 = -0.289474;
    // sqrt(v-hat) = sqrt(0.00124975/0.001999) = 0.790688; 0.8811 + 0.1*0.289474/0.790688 = 0.917710.
    // Second: decay -1.8612; m = -0.0125; v = 7.24375e-5; -1.8612 + 0.1*0.065789/0.190359 = -1.826639.
    p.grad_buffer() = Tensor::from_values(Shape{2}, {-1.0f, 0.1f});
    optimizer.step();
    CHECK(optimizer.steps_taken() == 2);
    CHECK(p.value()[0] == Approx(0.9177103542).margin(1e-6));
    CHECK(p.value()[1] == Approx(-1.8266394210).margin(1e-6));
    // As in PyTorch, a parameter without a gradient is skipped entirely, weight decay included.
    CHECK(untouched.value()[0] == 3.0f);

    optimizer.zero_grad();
    CHECK(p.grad()[0] == 0.0f);
    CHECK(p.grad()[1] == 0.0f);
}

TEST_CASE("cross_entropy over a sequence averages over the scored positions only", "[nn][loss]") {
    // logits (B=1, T=3, 2 classes). Position 0: (0, 0), target 0 -> log 2. Position 1: ignored, with
    // logits that would dominate any average. Position 2: (log 3, 0), target 0 -> -log(3/4).
    const float huge = 50.0f;
    Value logits(Tensor::from_values(Shape{1, 3, 2}, {0.0f, 0.0f, -huge, huge, std::log(3.0f), 0.0f}), true);
    const std::vector<int> targets{0, ignore_index, 0};
    Value loss = cross_entropy(logits, targets);
    CHECK(loss.shape() == Shape{});
    CHECK(loss.value().item() == Approx((std::log(2.0) + std::log(4.0 / 3.0)) / 2.0).epsilon(1e-6));

    // Gradient: (softmax - one_hot) / 2 at the two scored positions, exactly 0 at the ignored one.
    loss.backward();
    const Tensor& g = logits.grad();
    CHECK(g[0] == Approx((0.5 - 1.0) / 2.0));
    CHECK(g[1] == Approx(0.5 / 2.0));
    CHECK(g[2] == 0.0f);
    CHECK(g[3] == 0.0f);
    CHECK(g[4] == Approx((0.75 - 1.0) / 2.0));
    CHECK(g[5] == Approx(0.25 / 2.0));

    const GradcheckResult result = gradcheck(
        [&](const std::vector<Value>& in) { return cross_entropy(in[0], targets); },
        {random_input(Shape{1, 3, 2}, 20)}, default_tolerance);
    INFO("worst entry: " << result.worst);
    CHECK(result.passed);
}
