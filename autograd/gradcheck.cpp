// gradcheck: the analytic Jacobian row by row from backward, the numeric one column by column from
// central differences, compared entry by entry. Leaves out random probes: every entry is checked.
#include "autograd/gradcheck.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace wai {

namespace {

// Element `flat` of a row-major tensor of `shape`, as its index: "[1, 2]" ("[]" for a scalar).
std::string index_in(const Shape& shape, int64_t flat) {
    std::vector<int64_t> index(shape.rank());
    for (int axis = shape.rank() - 1; axis >= 0; --axis) {
        index[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    std::string text = "[";
    for (size_t axis = 0; axis < index.size(); ++axis) text += (axis ? ", " : "") + std::to_string(index[axis]);
    return text + "]";
}

}  // namespace

GradcheckResult gradcheck(const std::function<Value(const std::vector<Value>&)>& f, std::vector<Value> inputs,
                          const GradcheckOptions& options) {
    const Value probe = f(inputs);
    const int64_t outputs = probe.value().numel();

    // analytic[k][o][i]: d output o / d element i of input k, one backward per output element.
    std::vector<std::vector<std::vector<double>>> analytic(inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k)
        analytic[k].assign(outputs, std::vector<double>(inputs[k].value().numel(), 0.0));
    for (int64_t o = 0; o < outputs; ++o) {
        for (Value& in : inputs) in.zero_grad();
        Value out = f(inputs);
        Tensor seed(out.shape());
        seed[o] = 1.0f;
        out.backward(seed);
        for (size_t k = 0; k < inputs.size(); ++k)
            for (int64_t i = 0; i < inputs[k].value().numel(); ++i) analytic[k][o][i] = inputs[k].grad()[i];
    }

    GradcheckResult result;
    double worst_failing = 0.0;
    NoGradScope no_grad;
    for (size_t k = 0; k < inputs.size(); ++k) {
        Tensor& x = inputs[k].value();
        for (int64_t i = 0; i < x.numel(); ++i) {
            const float saved = x[i];
            x[i] = static_cast<float>(saved + options.step);
            const Tensor plus = f(inputs).value();
            x[i] = static_cast<float>(saved - options.step);
            const Tensor minus = f(inputs).value();
            x[i] = saved;
            for (int64_t o = 0; o < outputs; ++o) {
                const double numeric = (static_cast<double>(plus[o]) - minus[o]) / (2.0 * options.step);
                // A NaN or infinity on either side fails, and counts as the largest error.
                const double difference = std::abs(analytic[k][o][i] - numeric);
                const double error = std::isfinite(difference) ? difference : HUGE_VAL;
                ++result.entries;
                const bool fails = !(error <= options.abs_tol + options.rel_tol * std::abs(numeric));
                // The entry reported is the worst failing one, or the worst of all when none fails.
                const bool worse = fails ? (result.passed || error > worst_failing) : (result.passed && error > result.max_abs_error);
                result.max_abs_error = std::max(result.max_abs_error, error);
                if (fails) {
                    result.passed = false;
                    if (worse) worst_failing = error;
                }
                if (worse) {
                    std::ostringstream where;
                    where << "input " << k << " at " << index_in(x.shape(), i) << ", output at "
                          << index_in(probe.value().shape(), o) << ": analytic " << analytic[k][o][i] << ", numeric "
                          << numeric;
                    result.worst = where.str();
                }
            }
        }
    }
    return result;
}

}  // namespace wai
