// Helpers the test files share: gradient checks with a readable failure, element-wise closeness,
// seeded parameters, the message of an expected exception, and a tiny experiment run.
// Leaves out anything one test file alone needs; that stays in the file.
#pragma once
#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "autograd/value.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"

namespace wai::testing {

using Function = std::function<Value(const std::vector<Value>&)>;

// The gradchecks use GradcheckOptions' defaults: step 1e-3, and an entry passes when
// |analytic - numeric| <= 1e-3 + 1e-2 * |numeric|.
inline const GradcheckOptions default_tolerance{};

// The full-Jacobian gradcheck, failing with the worst entry in the message.
inline void check_gradients(const Function& f, const std::vector<Value>& inputs, const GradcheckOptions& tolerance) {
    const GradcheckResult result = gradcheck(f, inputs, tolerance);
    INFO("worst entry: " << result.worst << " (abs error " << result.max_abs_error << ")");
    CHECK(result.entries > 0);
    CHECK(result.passed);
}

// A parameter (requires_grad) of uniform(-1, 1) numbers; each seed gives its own numbers.
inline Value parameter(const Shape& shape, uint64_t seed) {
    Generator generator(seed);
    return Value(Tensor::uniform(shape, -1.0f, 1.0f, generator), true);
}

inline std::vector<float> numbers(const Tensor& t) { return std::vector<float>(t.data(), t.data() + t.numel()); }

// Same shape, and every element within rel (relative) or abs (absolute) of the expected one.
inline void check_close(const Tensor& actual, const Tensor& expected, double rel = 1e-5, double abs = 1e-6) {
    REQUIRE(actual.shape() == expected.shape());
    for (int64_t i = 0; i < actual.numel(); ++i) {
        INFO("element " << i);
        CHECK(actual[i] == Approx(expected[i]).epsilon(rel).margin(abs));
    }
}

// The message of the Exception that f throws, or a note that it threw none.
template <typename Exception>
std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Exception& e) {
        return e.what();
    }
    return "(no exception of the expected type was thrown)";
}

inline std::string invalid_argument_message(const std::function<void()>& f) { return message_of<std::invalid_argument>(f); }

// max |ours - reference| / max |reference| (the plain max difference when the reference is all zero):
// each tensor compared on its own scale, so an entry near zero (a sum of cancelling terms) cannot
// fail for float rounding alone, while a wrong sign or a missing term gives errors of order 1.
inline double error_on_scale(const Tensor& ours, const Tensor& reference) {
    REQUIRE(ours.shape() == reference.shape());
    double difference = 0.0, scale = 0.0;
    for (int64_t i = 0; i < ours.numel(); ++i) {
        difference = std::max(difference, std::abs(double(ours[i]) - double(reference[i])));
        scale = std::max(scale, std::abs(double(reference[i])));
    }
    return scale > 0.0 ? difference / scale : difference;
}

// (shape) of N(0, 1) numbers; each seed gives its own numbers.
inline Tensor random_tensor(const Shape& shape, uint64_t seed) {
    Generator generator(seed);
    return Tensor::normal(shape, 0.0f, 1.0f, generator);
}

// (T, H): the same vector on every row, so that after rope_rotate row p is the vector at position p.
inline Tensor repeated_rows(const Tensor& vector, int64_t T) {
    const int64_t H = vector.numel();
    Tensor rows(Shape{T, H});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < H; ++c) rows[t * H + c] = vector[c];
    return rows;
}

// Row m of a (T, H) dotted with row n of another, in double.
inline double row_dot(const Tensor& a, int64_t m, const Tensor& b, int64_t n) {
    const int64_t H = a.shape().last();
    double total = 0.0;
    for (int64_t c = 0; c < H; ++c) total += static_cast<double>(a[m * H + c]) * b[n * H + c];
    return total;
}

// A run of the experiment small enough for a test (2 steps of batch 2, width 8, one layer, 2 test
// sequences): it must finish with three accuracies, a finite loss and a result line that parses back.
inline void check_tiny_run(const std::string& task, const std::string& scheme) {
    INFO(task << " " << scheme);
    RunConfig config;
    config.task = task, config.scheme = scheme;
    config.steps = 2, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 2;
    const RunResult result = run_experiment(config);
    CHECK(result.accuracy.size() == 3);
    CHECK(std::isfinite(result.final_loss));
    CHECK(parse_result_line(format_result_line(config, result)).has_value());
}

}  // namespace wai::testing
