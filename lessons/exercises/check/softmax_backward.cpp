// The checker of the softmax-backward exercise: your softmax_backward against the library's softmax
// backward (wai::softmax, autograd/softmax.cpp) on the same scores and incoming gradient, without a
// mask on (2, 3, 5) and under the causal mask on (2, 4, 6) (four queries, the last four of six
// keys); each time also your backward as an op (exercise::learner_op), gradchecked entry by entry
// against finite differences of the library's forward. Then one training step of the chapter's
// model on the plain kernels, with your function as the backward of every softmax node of the
// recorded graph, every parameter's gradient compared with the library's backward. Each time it also
// checks that every row of your dx sums to 0, as softmax's backward does. Known slips it names: the
// sign flipped, the sum taken over columns or over the whole tensor, only the Jacobian's diagonal
// (y (1 - y) g), the factor y forgotten (on the whole, or on the sum),
// the sum not started again per row, the sum of g alone.
// Leaves out the forward: the library computes y, you are given it.

#include <algorithm>

#include "autograd/ops.hpp"
#include "lessons/exercises/check/engine_training_step.hpp"
#include "lessons/exercises/softmax_backward.hpp"
#include "tensor/elementwise.hpp"

using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

// y is in [0, 1] and g about 1, summed over at most 6 entries: float32 rounding stays near 1e-7,
// and a wrong term moves dx by about y, far more than this.
constexpr double tolerance = 1e-5;

// What a slip computes, (..., Tk): (times_y ? y : 1) * (g - s), where s sums g * y (or g alone when
// !weighted) over the row, or over the column (every row's entry j) when by_columns; when
// !reset, s of a row also holds every row before it (a sum started once, not once per row); when
// !y_on_sum, y multiplies g alone: y * g - s; when whole, s sums g * y over the whole tensor.
struct Variant {
    bool by_columns = false, times_y = true, weighted = true, reset = true, y_on_sum = true, whole = false;
};
Tensor slipped(const Tensor& y, const Tensor& g, const Variant& v) {
    const int64_t Tk = y.shape().last(), rows = y.numel() / Tk;
    std::vector<double> sums(v.by_columns ? Tk : rows, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        if (!v.reset && !v.by_columns && r > 0) sums[r] = sums[r - 1];
        for (int64_t j = 0; j < Tk; ++j) sums[v.by_columns ? j : r] += g[r * Tk + j] * (v.weighted ? y[r * Tk + j] : 1.0f);
    }
    if (v.whole) {
        double total = 0.0;
        for (int64_t r = 0; r < rows; ++r) total += sums[r];
        std::fill(sums.begin(), sums.end(), total);
    }
    Tensor dx(y.shape());
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < Tk; ++j) {
            const double factor = v.times_y ? y[r * Tk + j] : 1.0, s = sums[v.by_columns ? j : r];
            dx[r * Tk + j] = static_cast<float>(v.y_on_sum ? factor * (g[r * Tk + j] - s) : factor * g[r * Tk + j] - s);
        }
    return dx;
}

// (..., Tk): y (1 - y) g, each entry's own term of the Jacobian and none of the others.
Tensor diagonal_only(const Tensor& y, const Tensor& g) {
    Tensor dx(y.shape());
    for (int64_t i = 0; i < y.numel(); ++i) dx[i] = static_cast<float>(double(y[i]) * (1.0 - y[i]) * g[i]);
    return dx;
}

// Every row of softmax's dx sums to 0: a row of y always sums to 1, so no change of x can change
// that total, and sum over i of y[i] (g[i] - s) = s - s * 1 = 0. A check of its own, with what
// the rows that break it suggest: only the first row right, something carried from row to row (a
// sum not started again per row); every row off, a term without its factor y or a wrong s.
void check_rows_sum_to_zero(exercise::Checker& checker, const std::string& name, const Tensor& dx) {
    const int64_t Tk = dx.shape().last(), rows = dx.numel() / Tk;
    std::vector<double> totals(rows, 0.0);
    int64_t off = 0, first_off = -1;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < Tk; ++j) totals[r] += dx[r * Tk + j];
        if (!exercise::close(totals[r], 0.0, tolerance) && off++ == 0) first_off = r;
    }
    const std::string what = "each row of your dx " + name + " sums to 0, as softmax's backward must";
    if (off == 0) {
        checker.ok(what);
        return;
    }
    std::string hint;
    if (first_off > 0 && off == rows - first_off)
        hint = (first_off == 1 ? std::string("the first row sums to 0") : "the first " + std::to_string(first_off) + " rows sum to 0") +
               " and every later one does not: something carries over from one row to the next, such as a sum of g * y "
               "started once before the loop over rows instead of at 0 for each row";
    else if (off == rows)
        hint = "no row sums to 0: the sum over i of y[i] * (g[i] - s) is 0 only when every term has its factor y, on s as "
               "well as on g, and s is this row's own sum of g * y";
    checker.wrong(what,
                  std::to_string(off) + " of " + std::to_string(rows) + " rows do not; the first, the row from " +
                      exercise::index_in(dx.shape(), first_off * Tk) + ", sums to " + exercise::number(totals[first_off]),
                  hint);
}

// One case: your dx against the library's, then the gradcheck; false at the first failure.
bool check_case(exercise::Checker& checker, const std::string& name, const Shape& shape, bool causal, wai::Generator& generator) {
    const Tensor x = Tensor::normal(shape, 0.0f, 2.0f, generator), g = Tensor::normal(shape, 0.0f, 1.0f, generator);
    Value x_value(x, true);
    Value y_value = wai::softmax(x_value, causal);
    y_value.backward(g);
    const Tensor& y = y_value.value();
    const Tensor& expected = x_value.grad();
    const Tensor yours = softmax_backward(y, g);
    const bool right = checker.compare(
        "dx " + name + ", against the library's softmax backward", yours, expected, tolerance,
        {{"every sign is flipped: dx = y * (g - sum of g * y), not y * (sum - g)", wai::scale(expected, -1.0f)},
         {"the sum runs down a column (entry j of every row); it runs along the row, over the keys of one query",
          slipped(y, g, {.by_columns = true})},
         {"the factor y is missing: dx = y * (g - sum of g * y); without it even masked entries get a gradient",
          slipped(y, g, {.times_y = false})},
         {"the factor y is missing on the sum: dx = y * (g - s) = y * g - y * s, not y * g - s",
          slipped(y, g, {.y_on_sum = false})},
         {"the sum of g * y is not started again at 0 for each row: each row's sum also holds the rows before it "
          "(declare it inside the loop over rows)",
          slipped(y, g, {.reset = false})},
         {"the sum is of g alone: weight each g[j] by y[j] before adding them up", slipped(y, g, {.weighted = false})},
         {"the sum of g * y runs over the whole tensor; it is each row's own, over the keys of one query",
          slipped(y, g, {.whole = true})},
         {"that is only the diagonal of softmax's Jacobian, y (1 - y) g: every other key j adds -y y[j] g[j] as well, "
          "and all together dx = y * (g - sum of g * y)",
          diagonal_only(y, g)}});
    if (yours.defined() && yours.shape() == expected.shape()) check_rows_sum_to_zero(checker, name, yours);
    if (!right) return false;
    return exercise::gradcheck(
        checker, "your backward as an op " + name + ", gradchecked",
        [causal](const std::vector<Value>& in) {
            return exercise::learner_op(
                "your_softmax", in, [causal](const std::vector<Tensor>& v) { return wai::softmax(Value(v[0]), causal).value(); },
                [](const std::vector<Tensor>&, const Tensor& out, const Tensor& grad) {
                    return std::vector<Tensor>{softmax_backward(out, grad)};
                });
        },
        {Value(x, true)});
}

void check(exercise::Checker& checker) {
    checker.next_hint = "write softmax_backward: for each row, the sum of g * y, then dx = y * (g - that sum)";
    wai::Generator generator(17);
    if (!check_case(checker, "for a plain softmax of (2, 3, 5)", Shape{2, 3, 5}, false, generator)) return;
    if (!check_case(checker, "for a causal softmax of (2, 4, 6), query t seeing keys 0..t + 2", Shape{2, 4, 6}, true, generator))
        return;
    exercise::compare_training_step_with_your_op(
        checker, "one training step of the chapter's model, every softmax with your backward", "softmax",
        [](const std::vector<Tensor>&, const Tensor& out, const Tensor& grad) { return std::vector<Tensor>{softmax_backward(out, grad)}; });
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"softmax_backward", "the backward of the softmax every score goes through (Where Am I?, \"Attention can't see order\")",
                                      "write softmax_backward"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
