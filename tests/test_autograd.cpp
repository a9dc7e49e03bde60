// Tests of autograd/'s machinery and arithmetic: backward accumulating over calls, retained interior
// gradients, NoGradScope, shape errors, the graph being freed (a 100000-op chain included), gradcheck
// itself, and forward values plus full-Jacobian gradchecks of add, subtract, multiply, scale, sum, mean and matmul.
// Leaves out the other ops (tests/test_autograd_ops.cpp) and the tensor kernels (tests/test_tensor.cpp).
#include "tests/catch.hpp"

#include <limits>

#include <pthread.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fast/fast_ops.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/ops.hpp"
#include "tensor/elementwise.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

Value constant(const Shape& shape, std::vector<float> values) {
    return Value(Tensor::from_values(shape, std::move(values)));
}

// op(a) . op(b) by the definition, batch entry by batch entry; a single 2-D operand is shared.
Tensor plain_matmul(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
    auto entry = [](const Tensor& t, bool transposed, int64_t n, int64_t i, int64_t j) {  // op(t)[n][i][j]
        const int64_t rows = t.size(t.rank() - 2), cols = t.size(t.rank() - 1);
        const int64_t base = t.rank() > 2 ? n * rows * cols : 0;
        return transposed ? t[base + j * cols + i] : t[base + i * cols + j];
    };
    const Tensor& batched = a.rank() >= b.rank() ? a : b;
    Shape out_shape;
    int64_t batch = 1;
    for (int i = 0; i + 2 < batched.rank(); ++i) {
        out_shape = out_shape.append(batched.size(i));
        batch *= batched.size(i);
    }
    const int64_t M = a.size(a.rank() - (trans_a ? 1 : 2)), K = a.size(a.rank() - (trans_a ? 2 : 1));
    const int64_t N = b.size(b.rank() - (trans_b ? 2 : 1));
    Tensor out(out_shape.append(M).append(N));
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double sum = 0.0;
                for (int64_t k = 0; k < K; ++k) sum += double(entry(a, trans_a, n, i, k)) * entry(b, trans_b, n, k, j);
                out[(n * M + i) * N + j] = static_cast<float>(sum);
            }
    return out;
}

}  // namespace

TEST_CASE("backward twice accumulates twice into a leaf; zero_grad resets it", "[autograd][backward]") {
    Value x = parameter(Shape{3}, 1);
    Value y = sum(scale(x, 3.0f));
    y.backward();
    CHECK(numbers(x.grad()) == std::vector<float>(3, 3.0f));
    y.backward();
    CHECK(numbers(x.grad()) == std::vector<float>(3, 6.0f));
    x.zero_grad();
    y.backward();
    CHECK(numbers(x.grad()) == std::vector<float>(3, 3.0f));
}

TEST_CASE("backward twice through a shared interior node accumulates twice", "[autograd][backward]") {
    Value x = parameter(Shape{4}, 2), w = parameter(Shape{4}, 3);
    const Value h = multiply(x, w);         // an interior node used twice below
    Value y = sum(add(h, multiply(h, h)));  // y = sum(h + h^2)
    y.backward();
    const Tensor& hv = h.value();
    for (int64_t i = 0; i < 4; ++i) {  // dy/dx = w (1 + 2h), dy/dw = x (1 + 2h)
        CHECK(x.grad()[i] == Approx(w.value()[i] * (1 + 2 * hv[i])));
        CHECK(w.grad()[i] == Approx(x.value()[i] * (1 + 2 * hv[i])));
    }
    const Tensor first_x = x.grad(), first_w = w.grad();
    CHECK_FALSE(h.has_grad());  // interior gradients are released after backward
    y.backward();
    check_close(x.grad(), scale(first_x, 2.0f));
    check_close(w.grad(), scale(first_w, 2.0f));
}

TEST_CASE("retain_grad keeps an interior node's gradient after backward, a fast op's too", "[autograd][backward]") {
    Value x = parameter(Shape{4}, 20), w = parameter(Shape{4}, 21);
    const Value gain = constant(Shape{4}, {0.5f, 1.0f, 1.5f, 2.0f}), shift = constant(Shape{4}, {0.1f, -0.2f, 0.3f, 0.0f});
    const Value h = multiply(x, w);                    // interior, retained
    const Value g = fast::layer_norm(h, gain, shift);  // interior, retained: its op takes the incoming gradient
    const Value u = multiply(g, g);  // interior, not retained
    Value y = sum(u);                // y = sum(layer_norm(x w)^2)
    h.node()->retain_grad = true;
    g.node()->retain_grad = true;
    y.backward();
    REQUIRE(g.has_grad());
    check_close(g.grad(), scale(g.value(), 2.0f));  // dy/dg = 2g
    REQUIRE(h.has_grad());
    const Tensor dh = h.grad();
    CHECK_FALSE(u.has_grad());  // released as usual
    // The leaves get what they get without retain_grad: the same graph built afresh, nothing retained.
    Value x_plain(x.value(), true), w_plain(w.value(), true);
    const Value g_plain = fast::layer_norm(multiply(x_plain, w_plain), gain, shift);
    Value y_plain = sum(multiply(g_plain, g_plain));
    y_plain.backward();
    CHECK(numbers(x.grad()) == numbers(x_plain.grad()));
    CHECK(numbers(w.grad()) == numbers(w_plain.grad()));
    // A second backward computes the retained gradients afresh (they do not add up); the leaves' do.
    y.backward();
    CHECK(numbers(h.grad()) == numbers(dh));
    check_close(g.grad(), scale(g.value(), 2.0f));
    check_close(x.grad(), scale(x_plain.grad(), 2.0f));
}

TEST_CASE("only values that require a gradient get one", "[autograd][backward]") {
    Value x = parameter(Shape{2}, 4);
    Value c = constant(Shape{2}, {5, 7});
    Value y = sum(multiply(x, c));
    y.backward();
    CHECK(numbers(x.grad()) == std::vector<float>{5, 7});
    CHECK_FALSE(c.has_grad());
    CHECK_THROWS_AS(c.grad(), std::logic_error);
    CHECK_THROWS_AS(sum(c).backward(), std::logic_error);                // nothing to differentiate
    CHECK_THROWS_AS(multiply(x, c).backward(), std::invalid_argument);  // two elements need a seed
    CHECK_THROWS_AS(multiply(x, c).backward(Tensor(Shape{3})), std::invalid_argument);
    Value leaf = parameter(Shape{2}, 15);  // a leaf as its own root takes the seed as its gradient
    leaf.backward(Tensor::from_values(Shape{2}, {2, -1}));
    CHECK(numbers(leaf.grad()) == std::vector<float>{2, -1});
}

TEST_CASE("a NoGradScope records nothing", "[autograd][no_grad]") {
    Value x = parameter(Shape{2, 2}, 5);
    const Value recorded = matmul(add(x, x), x);
    {
        NoGradScope no_grad;
        CHECK_FALSE(grad_enabled());
        const Value y = matmul(add(x, x), x);
        CHECK(y.is_leaf());
        CHECK_FALSE(y.requires_grad());
        CHECK(std::string(y.op_name()) == "leaf");
        CHECK(numbers(y.value()) == numbers(recorded.value()));
        { NoGradScope nested; }
        CHECK_FALSE(grad_enabled());
    }
    CHECK(grad_enabled());
    CHECK_FALSE(recorded.is_leaf());
    CHECK(std::string(recorded.op_name()) == "matmul");
    CHECK(add(constant(Shape{1}, {1}), constant(Shape{1}, {2})).is_leaf());  // no parent needs a gradient
}

TEST_CASE("shape mismatches throw std::invalid_argument naming the op and both shapes", "[autograd][errors]") {
    const Value a(Tensor(Shape{2, 3}), true);
    CHECK_THAT(invalid_argument_message([&] { add(a, Value(Tensor(Shape{4}))); }),
               ContainsSubstring("add") && ContainsSubstring("(2, 3)") && ContainsSubstring("(4)"));
    CHECK_THAT(invalid_argument_message([&] { subtract(a, Value(Tensor(Shape{2}))); }),
               ContainsSubstring("subtract") && ContainsSubstring("(2, 3)") && ContainsSubstring("(2)"));
    CHECK_THAT(invalid_argument_message([&] { multiply(a, Value(Tensor(Shape{3, 3}))); }),
               ContainsSubstring("multiply") && ContainsSubstring("(2, 3)") && ContainsSubstring("(3, 3)"));
    CHECK_THAT(invalid_argument_message([] { matmul(Value(Tensor(Shape{2048, 64})), Value(Tensor(Shape{32, 64}))); }),
               ContainsSubstring("matmul: (2048, 64) x (32, 64): inner dimensions 64 and 32 differ"));
    CHECK_THAT(invalid_argument_message([] {
                   layer_norm(Value(Tensor(Shape{2, 4})), Value(Tensor(Shape{3})), Value(Tensor(Shape{4})));
               }),
               ContainsSubstring("layer_norm") && ContainsSubstring("(2, 4)") && ContainsSubstring("(3)"));
    CHECK_THAT(invalid_argument_message([&] { reshape(a, Shape{4}); }), ContainsSubstring("reshape: (2, 3) to (4)"));
    CHECK_THROWS_AS(mean(Value(Tensor(Shape{0}))), std::invalid_argument);
}

TEST_CASE("the graph is freed when its output goes out of scope", "[autograd][graph]") {
    Value x = parameter(Shape{3}, 6);
    const long alone = x.use_count();
    Value interior;
    {
        const Value h = multiply(x, x);
        interior = h;
        Value y = sum(add(h, scale(h, 2.0f)));
        CHECK(x.use_count() > alone);
        y.backward();
    }
    CHECK(interior.use_count() == 1);  // add, scale and sum are gone; only this handle is left
    interior = Value();
    CHECK(x.use_count() == alone);
    CHECK(x.has_grad());  // the leaf keeps its gradient
}

namespace {

struct ChainResult {
    float value = 0.0f, grad = 0.0f;
    long uses_left = 0;
};

// Builds y = x + x + ... (100000 adds), backpropagates and drops it. Run on a thread with a 1 MiB
// stack, so that anything recursing once per node would overflow whatever the shell's limit is.
void* long_chain(void* out) {
    auto& result = *static_cast<ChainResult*>(out);
    Value x(Tensor::scalar(1.0f), true);
    {
        Value y = x;
        for (int i = 0; i < 100000; ++i) y = add(y, x);
        result.value = y.value().item();
        y.backward();
    }
    result.grad = x.grad().item();
    result.uses_left = x.use_count();
    return nullptr;
}

}  // namespace

TEST_CASE("a chain of 100000 adds is built, backpropagated and freed without recursion", "[autograd][graph]") {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 1 << 20);
    pthread_t thread;
    ChainResult result;
    REQUIRE(pthread_create(&thread, &attributes, long_chain, &result) == 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
    CHECK(result.value == 100001.0f);  // y = 100001 x
    CHECK(result.grad == 100001.0f);
    CHECK(result.uses_left == 1);  // every node that held x is gone
}

namespace {

// A deliberately wrong op, y = 2x with a backward that forgets the 2, so gradcheck must fail.
struct WrongDouble final : Op {
    static Value forward(const Value& x) {
        return record("wrong_double", wai::scale(x.value(), 2.0f), {x}, std::make_unique<WrongDouble>());
    }
    void backward(Node& out) override { add_scaled_inplace(out.parents[0].grad_buffer(), out.grad, 1.0f); }
};

// y = 2x (2, 2) whose backward writes NaN into element [1, 0] of x's gradient: NaN is never close.
struct NanDouble final : Op {
    static Value forward(const Value& x) {
        return record("nan_double", wai::scale(x.value(), 2.0f), {x}, std::make_unique<NanDouble>());
    }
    void backward(Node& out) override {
        Tensor grad = wai::scale(out.grad, 2.0f);
        grad[2] = std::numeric_limits<float>::quiet_NaN();
        add_scaled_inplace(out.parents[0].grad_buffer(), grad, 1.0f);
    }
};

}  // namespace

TEST_CASE("gradcheck fails a wrong backward and counts the whole Jacobian", "[autograd][gradcheck]") {
    const GradcheckResult wrong = gradcheck([](const std::vector<Value>& in) { return WrongDouble::forward(in[0]); },
                                            {parameter(Shape{3}, 7)}, default_tolerance);
    CHECK_FALSE(wrong.passed);
    CHECK(wrong.max_abs_error == Approx(1.0).epsilon(1e-2));
    const GradcheckResult right = gradcheck([](const std::vector<Value>& in) { return scale(in[0], 2.0f); },
                                            {parameter(Shape{3}, 7)}, default_tolerance);
    CHECK(right.passed);
    CHECK(right.entries == 9);
    // A NaN in the gradient fails (a comparison with NaN is false, so "error > tolerance" never was),
    // and the entry named is the first NaN's, as an index in the input's and the output's shapes
    // (the backward writes it whichever output is seeded, so output [0, 0] comes first).
    const GradcheckResult nan = gradcheck([](const std::vector<Value>& in) { return NanDouble::forward(in[0]); },
                                          {parameter(Shape{2, 2}, 7)}, default_tolerance);
    CHECK_FALSE(nan.passed);
    CHECK(nan.entries == 16);
    CHECK_THAT(nan.worst, Catch::Matchers::StartsWith("input 0 at [1, 0], output at [0, 0]: analytic nan"));
}

TEST_CASE("add, subtract, multiply: same shape", "[autograd][add][subtract][multiply]") {
    const Value a = constant(Shape{2, 2}, {1, 2, 3, 4}), b = constant(Shape{2, 2}, {10, -20, 0.5f, 4});
    CHECK(numbers(add(a, b).value()) == std::vector<float>{11, -18, 3.5f, 8});
    CHECK(numbers(subtract(a, b).value()) == std::vector<float>{-9, 22, 2.5f, 0});
    CHECK(numbers(multiply(a, b).value()) == std::vector<float>{10, -40, 1.5f, 16});

    const std::vector<Value> inputs{parameter(Shape{2, 3}, 8), parameter(Shape{2, 3}, 9)};
    check_gradients([](const std::vector<Value>& in) { return add(in[0], in[1]); }, inputs, default_tolerance);
    check_gradients([](const std::vector<Value>& in) { return subtract(in[0], in[1]); }, inputs, default_tolerance);
    check_gradients([](const std::vector<Value>& in) { return multiply(in[0], in[1]); }, inputs, default_tolerance);
    // One value on both sides: its two gradient shares must add up.
    check_gradients([](const std::vector<Value>& in) { return multiply(in[0], in[0]); }, inputs, default_tolerance);
}

TEST_CASE("add, subtract, multiply: trailing-shape broadcast of b", "[autograd][add][subtract][multiply]") {
    const Value a = parameter(Shape{2, 3, 4}, 10);
    for (const Shape& trailing : {Shape{4}, Shape{3, 4}}) {
        const Value b = parameter(trailing, 11);
        INFO("b " << trailing.str());
        const Tensor sum_ab = add(a, b).value(), difference = subtract(a, b).value(), product = multiply(a, b).value();
        for (int64_t i = 0; i < a.value().numel(); ++i) {
            const float x = a.value()[i], y = b.value()[i % trailing.numel()];
            CHECK(sum_ab[i] == x + y);
            CHECK(difference[i] == x - y);
            CHECK(product[i] == x * y);
        }
        const std::vector<Value> inputs{a, b};
        check_gradients([](const std::vector<Value>& in) { return add(in[0], in[1]); }, inputs, default_tolerance);
        check_gradients([](const std::vector<Value>& in) { return subtract(in[0], in[1]); }, inputs, default_tolerance);
        check_gradients([](const std::vector<Value>& in) { return multiply(in[0], in[1]); }, inputs, default_tolerance);
    }
}

TEST_CASE("scale", "[autograd][scale]") {
    CHECK(numbers(scale(constant(Shape{3}, {1, -2, 4}), -1.5f).value()) == std::vector<float>{-1.5f, 3, -6});
    check_gradients([](const std::vector<Value>& in) { return scale(in[0], -1.5f); }, {parameter(Shape{2, 3}, 12)},
                    default_tolerance);
}

TEST_CASE("sum and mean", "[autograd][sum][mean]") {
    const Value a = constant(Shape{2, 3}, {1, 2, 3, 4, 5, 6.5f});
    CHECK(sum(a).value().item() == 21.5f);
    CHECK(sum(a).shape() == Shape{});
    CHECK(mean(a).value().item() == Approx(21.5 / 6).epsilon(1e-7));
    check_gradients([](const std::vector<Value>& in) { return sum(in[0]); }, {parameter(Shape{2, 3}, 13)},
                    default_tolerance);
    check_gradients([](const std::vector<Value>& in) { return mean(in[0]); }, {parameter(Shape{2, 3}, 14)},
                    default_tolerance);
}

TEST_CASE("matmul: 2-D, batched and shared operands, each transpose flag", "[autograd][matmul]") {
    const bool trans_a = GENERATE(false, true);
    const bool trans_b = GENERATE(false, true);
    auto stored = [](Shape batch, int64_t rows, int64_t cols, bool transposed) {
        return transposed ? batch.append(cols).append(rows) : batch.append(rows).append(cols);
    };
    const int64_t M = 2, K = 3, N = 4;
    struct Batches { Shape a, b; };
    uint64_t seed = 20;
    for (const Batches& batch : {Batches{Shape{}, Shape{}}, Batches{Shape{2}, Shape{2}}, Batches{Shape{2}, Shape{}},
                                 Batches{Shape{}, Shape{2}}, Batches{Shape{2, 2}, Shape{2, 2}}}) {
        const Value a = parameter(stored(batch.a, M, K, trans_a), ++seed);
        const Value b = parameter(stored(batch.b, K, N, trans_b), ++seed);
        INFO(a.shape().str() << (trans_a ? "T" : "") << " x " << b.shape().str() << (trans_b ? "T" : ""));
        check_close(matmul(a, b, trans_a, trans_b).value(), plain_matmul(a.value(), b.value(), trans_a, trans_b));
        check_gradients([=](const std::vector<Value>& in) { return matmul(in[0], in[1], trans_a, trans_b); }, {a, b},
                        default_tolerance);
    }
    // One square matrix on both sides (x x^T when trans_b): both gradient shares land in one buffer.
    check_gradients([=](const std::vector<Value>& in) { return matmul(in[0], in[0], trans_a, trans_b); },
                    {parameter(Shape{3, 3}, 99)}, default_tolerance);
}
