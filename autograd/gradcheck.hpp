// gradcheck: compares an op's backward with central finite differences of its own forward.
// It builds the full Jacobian both ways (one backward per output element, two forwards per input
// element), so keep the shapes small. Leaves out second derivatives.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "autograd/value.hpp"

namespace wai {

struct GradcheckOptions {
    double step = 1e-3;       // finite-difference step on each input element
    double abs_tol = 1e-3;    // an entry passes when |analytic - numeric| <= abs_tol + rel_tol * |numeric|
    double rel_tol = 1e-2;
};

struct GradcheckResult {
    bool passed = true;
    double max_abs_error = 0.0;
    int64_t entries = 0;   // Jacobian entries compared
    std::string worst;     // where the largest error was, for the failure message
};

// f maps the inputs (leaves with requires_grad) to one output Value. The differences are taken in
// double from float32 forwards, which is why the step is 1e-3 and not smaller.
GradcheckResult gradcheck(const std::function<Value(const std::vector<Value>&)>& f, std::vector<Value> inputs,
                          const GradcheckOptions& options = {});

}  // namespace wai
