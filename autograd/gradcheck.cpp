// gradcheck: the analytic Jacobian row by row from backward, the numeric one column by column from
// central differences, compared entry by entry. Leaves out random probes: every entry is checked.
#include "autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

namespace wai {

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
                const double error = std::abs(analytic[k][o][i] - numeric);
                ++result.entries;
                if (error > options.abs_tol + options.rel_tol * std::abs(numeric)) result.passed = false;
                if (error > result.max_abs_error) {
                    result.max_abs_error = error;
                    std::ostringstream where;
                    where << "input " << k << " element " << i << ", output " << o << ": analytic "
                          << analytic[k][o][i] << ", numeric " << numeric;
                    result.worst = where.str();
                }
            }
        }
    }
    return result;
}

}  // namespace wai
