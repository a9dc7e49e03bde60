// Tests of the autograd ops beyond arithmetic and matmul: reshape, transpose, split_last, embedding,
// layer_norm, gelu, softmax (plain, causal, rectangular causal) and cross_entropy. Each gets a forward
// check against hand values or a plain loop written here, and a full-Jacobian gradcheck.
// Leaves out the graph machinery, arithmetic and matmul (tests/test_autograd.cpp).
#include "tests/catch.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "autograd/ops.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

// A tensor holding 0, 1, 2, ... in row-major order, so where each number went is plain to see.
Tensor counting(const Shape& shape) {
    Tensor t(shape);
    for (int64_t i = 0; i < t.numel(); ++i) t[i] = static_cast<float>(i);
    return t;
}

// a with axes axis0 and axis1 swapped, by the definition: out[..i..j..] = a[..j..i..].
Tensor plain_transpose(const Tensor& a, int axis0, int axis1) {
    const int rank = a.rank();
    std::vector<int64_t> sizes(rank);
    for (int i = 0; i < rank; ++i) sizes[i] = a.size(i);
    std::swap(sizes[axis0], sizes[axis1]);
    Shape out_shape;
    for (int64_t s : sizes) out_shape = out_shape.append(s);
    Tensor out(out_shape);
    std::vector<int64_t> index(rank);
    for (int64_t flat = 0; flat < out.numel(); ++flat) {
        int64_t rest = flat;
        for (int i = rank - 1; i >= 0; --i) {
            index[i] = rest % sizes[i];
            rest /= sizes[i];
        }
        std::swap(index[axis0], index[axis1]);
        int64_t source = 0;
        for (int i = 0; i < rank; ++i) source = source * a.size(i) + index[i];
        out[flat] = a[source];
    }
    return out;
}

// Softmax of each last-axis row of (..., T, Tk) in double; under the causal mask row t sees keys
// 0 .. t + (Tk - T) and the rest are 0.
Tensor plain_softmax(const Tensor& x, bool causal) {
    const int64_t Tk = x.shape().last(), T = x.size(x.rank() - 2);
    Tensor y(x.shape());
    for (int64_t r = 0; r < x.shape().rows(); ++r) {
        const int64_t visible = causal ? r % T + 1 + (Tk - T) : Tk;
        double total = 0.0;
        for (int64_t j = 0; j < visible; ++j) total += std::exp(double(x[r * Tk + j]));
        for (int64_t j = 0; j < visible; ++j)
            y[r * Tk + j] = static_cast<float>(std::exp(double(x[r * Tk + j])) / total);
    }
    return y;
}

// Frees a NaN-filled buffer of `shape`, which the next allocation of that size is likely to reuse:
// an op that leaves part of an uninitialised result unwritten then shows NaN, not a lucky zero.
void leave_nan_behind(const Shape& shape) { Tensor garbage = Tensor::full(shape, std::nanf("")); }

}  // namespace

TEST_CASE("reshape keeps the numbers in order", "[autograd][reshape]") {
    const Value a(counting(Shape{2, 3}));
    const Value r = reshape(a, Shape{3, 1, 2});
    CHECK(r.shape() == Shape{3, 1, 2});
    CHECK(numbers(r.value()) == numbers(a.value()));
    check_gradients([](const std::vector<Value>& in) { return reshape(in[0], Shape{3, 1, 2}); },
                    {parameter(Shape{2, 3}, 1)}, default_tolerance);
}

TEST_CASE("transpose of general axes and transpose_last2", "[autograd][transpose]") {
    // By hand: (2, 3) -> (3, 2).
    CHECK(numbers(transpose_last2(Value(counting(Shape{2, 3}))).value()) == std::vector<float>{0, 3, 1, 4, 2, 5});
    struct Case { Shape shape; int axis0, axis1; };
    uint64_t seed = 10;
    for (const Case& c : {Case{Shape{2, 3, 4}, 0, 2}, Case{Shape{2, 3, 2, 2}, 1, 2}, Case{Shape{2, 3, 2, 2}, 0, 3},
                          Case{Shape{3, 4}, 1, 0}, Case{Shape{2, 3, 4}, 1, 1}}) {
        INFO(c.shape.str() << " axes " << c.axis0 << ", " << c.axis1);
        const Value a(counting(c.shape));
        CHECK(numbers(transpose(a, c.axis0, c.axis1).value()) == numbers(plain_transpose(a.value(), c.axis0, c.axis1)));
        check_gradients([=](const std::vector<Value>& in) { return transpose(in[0], c.axis0, c.axis1); },
                        {parameter(c.shape, ++seed)}, default_tolerance);
    }
    const Value a(counting(Shape{2, 3, 4}));
    CHECK(numbers(transpose_last2(a).value()) == numbers(plain_transpose(a.value(), 1, 2)));
    check_gradients([](const std::vector<Value>& in) { return transpose_last2(in[0]); },
                    {parameter(Shape{2, 3, 4}, 20)}, default_tolerance);
    CHECK_THAT(invalid_argument_message([&] { transpose(a, 0, 3); }), ContainsSubstring("transpose: (2, 3, 4)"));
    CHECK_THROWS_AS(transpose_last2(Value(Tensor(Shape{4}))), std::invalid_argument);
}

TEST_CASE("split_last cuts the last axis into equal parts", "[autograd][split_last]") {
    const std::vector<Value> parts = split_last(Value(counting(Shape{2, 6})), 3);
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].shape() == Shape{2, 2});
    CHECK(numbers(parts[0].value()) == std::vector<float>{0, 1, 6, 7});
    CHECK(numbers(parts[1].value()) == std::vector<float>{2, 3, 8, 9});
    CHECK(numbers(parts[2].value()) == std::vector<float>{4, 5, 10, 11});

    const std::vector<Value> input{parameter(Shape{2, 2, 6}, 30)};
    for (int k = 0; k < 3; ++k)
        check_gradients([k](const std::vector<Value>& in) { return split_last(in[0], 3)[k]; }, input,
                        default_tolerance);
    // All three parts used at once: their gradients land side by side in one buffer.
    check_gradients(
        [](const std::vector<Value>& in) {
            const std::vector<Value> p = split_last(in[0], 3);
            return add(add(p[0], scale(p[1], 2.0f)), multiply(p[2], p[0]));
        },
        input, default_tolerance);
    CHECK_THAT(invalid_argument_message([] { split_last(Value(Tensor(Shape{2, 5})), 3); }),
               ContainsSubstring("split_last: (2, 5)"));
}

TEST_CASE("embedding gathers rows, and repeated indices accumulate their gradients", "[autograd][embedding]") {
    Value table(counting(Shape{5, 3}), true);  // row r holds 3r, 3r+1, 3r+2
    const std::vector<int> indices{1, 4, 1, 0, 2, 1};
    Value rows = embedding(table, indices, Shape{2, 3});
    CHECK(rows.shape() == Shape{2, 3, 3});
    CHECK(numbers(rows.value()) == std::vector<float>{3, 4, 5, 12, 13, 14, 3, 4, 5, 0, 1, 2, 6, 7, 8, 3, 4, 5});

    rows.backward(Tensor::full(rows.shape(), 1.0f));
    // Row 1 was gathered three times, row 3 never.
    CHECK(numbers(table.grad()) == std::vector<float>{1, 1, 1, 3, 3, 3, 1, 1, 1, 0, 0, 0, 1, 1, 1});

    check_gradients([&](const std::vector<Value>& in) { return embedding(in[0], indices, Shape{2, 3}); },
                    {parameter(Shape{5, 3}, 40)}, default_tolerance);
    CHECK_THAT(invalid_argument_message([&] { embedding(table, {5}, Shape{1}); }), ContainsSubstring("index 5"));
    CHECK_THROWS_AS(embedding(table, {0, 1}, Shape{3}), std::invalid_argument);
    CHECK_THROWS_AS(embedding(Value(Tensor(Shape{5})), {0}, Shape{1}), std::invalid_argument);
}

TEST_CASE("layer_norm: forward by hand and by a plain loop; gradients for x, weight and bias",
          "[autograd][layer_norm]") {
    // x = (1, 2, 3): mean 2, biased variance 2/3, so x_hat = (-sqrt 1.5, 0, sqrt 1.5) with eps 0.
    const Value x(Tensor::from_values(Shape{1, 3}, {1, 2, 3}));
    const Value weight(Tensor::from_values(Shape{3}, {1, 2, 3})), bias(Tensor::from_values(Shape{3}, {0, 1, -1}));
    const float root = std::sqrt(1.5f);
    check_close(layer_norm(x, weight, bias, 0.0f).value(), Tensor::from_values(Shape{1, 3}, {-root, 1, 3 * root - 1}));
    // A constant row has no spread: eps keeps it finite and the output is the bias.
    CHECK(numbers(layer_norm(Value(Tensor::full(Shape{3}, 5.0f)), weight, bias).value()) == numbers(bias.value()));

    const Value px = parameter(Shape{2, 3, 5}, 50), pw = parameter(Shape{5}, 51), pb = parameter(Shape{5}, 52);
    const float eps = 1e-5f;
    Tensor expected(px.shape());
    for (int64_t r = 0; r < 6; ++r) {
        const float* row = px.value().data() + r * 5;
        double mean = 0.0, variance = 0.0;
        for (int c = 0; c < 5; ++c) mean += row[c] / 5.0;
        for (int c = 0; c < 5; ++c) variance += (row[c] - mean) * (row[c] - mean) / 5.0;
        for (int c = 0; c < 5; ++c) {
            const double x_hat = (row[c] - mean) / std::sqrt(variance + eps);
            expected[r * 5 + c] = static_cast<float>(x_hat * pw.value()[c] + pb.value()[c]);
        }
    }
    check_close(layer_norm(px, pw, pb, eps).value(), expected, 1e-5, 1e-5);
    check_gradients([](const std::vector<Value>& in) { return layer_norm(in[0], in[1], in[2]); }, {px, pw, pb},
                    default_tolerance);
    // x also feeding a residual sum, whose backward runs first: layer_norm then adds onto x's
    // gradient instead of handing over a fresh one.
    check_gradients([](const std::vector<Value>& in) { return add(in[0], layer_norm(in[0], in[1], in[2])); },
                    {px, pw, pb}, default_tolerance);
}

TEST_CASE("gelu: hand values and gradients over -3..3", "[autograd][gelu]") {
    // gelu(x) = x Phi(x): Phi(1) = 0.841344746, Phi(0.5) = 0.691462461, Phi(2) = 0.977249868.
    const Value x(Tensor::from_values(Shape{5}, {0, 1, -1, 0.5f, 2}));
    check_close(gelu(x).value(),
                Tensor::from_values(Shape{5}, {0, 0.841344746f, -0.158655254f, 0.345731231f, 1.954499736f}));
    Tensor spread(Shape{2, 7});
    for (int64_t i = 0; i < spread.numel(); ++i) spread[i] = -3.0f + 6.0f * static_cast<float>(i) / 13.0f;
    check_gradients([](const std::vector<Value>& in) { return gelu(in[0]); }, {Value(spread, true)}, default_tolerance);
}

TEST_CASE("softmax: forward by hand and by a plain loop, plain and causal", "[autograd][softmax]") {
    // exp(0), exp(ln 2), exp(ln 3) = 1, 2, 3 out of 6.
    check_close(softmax(Value(Tensor::from_values(Shape{3}, {0, std::log(2.0f), std::log(3.0f)}))).value(),
                Tensor::from_values(Shape{3}, {1 / 6.0f, 2 / 6.0f, 3 / 6.0f}));
    // Equal scores: each row shares evenly over the keys it may see.
    const float third = 1 / 3.0f;
    CHECK(numbers(softmax(Value(Tensor(Shape{3, 3})), true).value()) ==
          std::vector<float>{1, 0, 0, 0.5f, 0.5f, 0, third, third, third});
    // T = 2 queries at the end of Tk = 4 keys: the first query sees 3 keys, the second all 4.
    check_close(softmax(Value(Tensor(Shape{2, 4})), true).value(),
                Tensor::from_values(Shape{2, 4}, {third, third, third, 0, 0.25f, 0.25f, 0.25f, 0.25f}));
    // Large scores do not overflow: the row maximum is subtracted first.
    CHECK(numbers(softmax(Value(Tensor::from_values(Shape{2}, {1000, 1000}))).value()) ==
          std::vector<float>{0.5f, 0.5f});

    uint64_t seed = 60;
    for (const Shape& shape : {Shape{2, 3, 4}, Shape{2, 3, 3}, Shape{2, 2, 4}, Shape{1, 2, 2, 5}})
        for (bool causal : {false, true}) {
            INFO(shape.str() << (causal ? " causal" : ""));
            const Value x = parameter(shape, ++seed);
            leave_nan_behind(shape);
            check_close(softmax(x, causal).value(), plain_softmax(x.value(), causal));
        }
    CHECK_THROWS_AS(softmax(Value(Tensor(Shape{4})), true), std::invalid_argument);
}

TEST_CASE("softmax gradients: plain, causal square, causal with Tk > T", "[autograd][softmax]") {
    struct Case { Shape shape; bool causal; };
    uint64_t seed = 70;
    for (const Case& c : {Case{Shape{2, 3, 4}, false}, Case{Shape{2, 3, 3}, true}, Case{Shape{2, 2, 4}, true},
                          Case{Shape{1, 2, 2, 5}, true}}) {
        INFO(c.shape.str() << (c.causal ? " causal" : ""));
        check_gradients([=](const std::vector<Value>& in) { return softmax(in[0], c.causal); },
                        {parameter(c.shape, ++seed)}, default_tolerance);
    }
}

TEST_CASE("cross_entropy: hand values, ignored rows, stability, gradients", "[autograd][cross_entropy]") {
    // Row 0: 4 equal logits, -log(1/4). Row 1: exp(logits) = 1, 2, 3, 4, target 3: -log(4/10).
    // Row 2 is ignored, however wild its logits.
    const Value logits(Tensor::from_values(Shape{3, 4}, {0, 0, 0, 0, 0, std::log(2.0f), std::log(3.0f), std::log(4.0f),
                                                         100, -100, 50, 0}));
    CHECK(cross_entropy(logits, {2, 3, ignore_index}).value().item() ==
          Approx((std::log(4.0) + std::log(2.5)) / 2).epsilon(1e-6));
    CHECK(cross_entropy(logits, {2, ignore_index, ignore_index}).value().item() == Approx(std::log(4.0)).epsilon(1e-6));

    const Value large(Tensor::from_values(Shape{2, 2}, {1000, 0, 0, 1000}));
    CHECK(cross_entropy(large, {0, 0}).value().item() == Approx(500.0).epsilon(1e-6));  // (0 + 1000) / 2

    const std::vector<int> targets{0, ignore_index, 3, 1, ignore_index, 2};
    check_gradients([&](const std::vector<Value>& in) { return cross_entropy(in[0], targets); },
                    {parameter(Shape{2, 3, 4}, 80)}, default_tolerance);
    Value scored = parameter(Shape{2, 3, 4}, 80);
    cross_entropy(scored, targets).backward();
    for (int64_t row : {1, 4})  // ignored rows get nothing
        for (int64_t j = 0; j < 4; ++j) CHECK(scored.grad()[row * 4 + j] == 0.0f);

    CHECK_THAT(invalid_argument_message([&] { cross_entropy(logits, {ignore_index, ignore_index, ignore_index}); }),
               ContainsSubstring("cross_entropy") && ContainsSubstring("nothing to score"));
    CHECK_THAT(invalid_argument_message([&] { cross_entropy(logits, {0, 4, 0}); }), ContainsSubstring("target 4"));
    CHECK_THAT(invalid_argument_message([&] { cross_entropy(logits, {0, 1}); }), ContainsSubstring("(3, 4)"));
}

TEST_CASE("linear equals matmul with the weight transposed plus the bias, and its gradients check", "[autograd][linear]") {
    Generator g(21);
    Value x(Tensor::normal({2, 3, 4}, 0, 1, g), true), w(Tensor::normal({5, 4}, 0, 1, g), true),
        b(Tensor::normal({5}, 0, 1, g), true);
    const Tensor fused = linear(x, w, b).value();
    const Tensor composed = add(matmul(x, w, false, true), b).value();
    REQUIRE(fused.shape() == Shape{2, 3, 5});
    for (int64_t i = 0; i < fused.numel(); ++i) CHECK(fused[i] == Approx(composed[i]).epsilon(1e-5).margin(1e-6));
    // Default gradcheck tolerances (step 1e-3, |analytic - numeric| <= 1e-3 + 1e-2 |numeric|).
    const GradcheckResult r = gradcheck([](const std::vector<Value>& in) { return linear(in[0], in[1], in[2]); }, {x, w, b});
    INFO(r.worst);
    CHECK(r.passed);
    CHECK_THROWS_WITH(linear(x, Value(Tensor::zeros({5, 3})), b), Catch::Matchers::ContainsSubstring("linear") && Catch::Matchers::ContainsSubstring("(2, 3, 4)"));
}
