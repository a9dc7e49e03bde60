// The checker of the broadcast-multiply exercise: your multiply_backward for y = a * b, a (2, 3, 4)
// and b (4) repeated over a's leading axes, against the library's multiply backward (wai::multiply,
// autograd/arithmetic.cpp) on the same a, b and incoming gradient g, da first, then db; then your
// backward as an op (exercise::learner_op), gradchecked entry by entry against finite differences of
// the forward. Known slips it names: db not summed over the rows (a's shape, or the first row only),
// da and db swapped, db as the sum of g without a, da without b.
// Leaves out b with a's own shape: that product has no sum, and every other op's backward shows it.
#include "autograd/ops.hpp"
#include "lessons/exercises/broadcast_multiply_backward.hpp"
#include "lessons/exercises/exercise.hpp"
#include "tensor/elementwise.hpp"

using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

// Numbers of about 1 whose products are summed over 6 rows: float32 keeps 7 digits, so learner and
// library agree to far better than this unless a term is wrong.
constexpr double tolerance = 1e-5;

// (..., D) -> (D): the sum over the rows, as the library's broadcast share does it.
Tensor summed_over_rows(const Tensor& t) {
    Tensor total(Shape{t.shape().last()});
    wai::sum_leading_into(total, t);
    return total;
}

Tensor first_row(const Tensor& t) {
    Tensor row(Shape{t.shape().last()});
    for (int64_t j = 0; j < row.numel(); ++j) row[j] = t[j];
    return row;
}

void check(exercise::Checker& checker) {
    checker.next_hint = "write multiply_backward: da is g times b on every row; db sums g times a over the rows";
    wai::Generator generator(11);
    const Tensor a = Tensor::normal(Shape{2, 3, 4}, 0.0f, 1.0f, generator);
    const Tensor b = Tensor::normal(Shape{4}, 0.0f, 1.0f, generator);
    const Tensor g = Tensor::normal(Shape{2, 3, 4}, 0.0f, 1.0f, generator);
    const MultiplyGrads yours = multiply_backward(a, b, g);

    Value a_value(a, true), b_value(b, true);
    wai::multiply(a_value, b_value).backward(g);
    const Tensor g_times_a = wai::multiply(g, a), g_times_b = wai::multiply(g, b);
    const bool da_right = checker.compare(
        "da for a (2, 3, 4), b (4), against the library's multiply backward", yours.da, a_value.grad(), tolerance,
        {{"da is g * a: da and db are swapped; a's share is g times the other operand, b (repeated on every row)", g_times_a},
         {"da is g itself: multiply it by b, the other operand", g}});
    const bool db_right = checker.compare(
        "db, against the library's multiply backward", yours.db, b_value.grad(), tolerance,
        {{"db is g * a row by row, in a's shape: b was used on every row, so sum those rows into one (D)", g_times_a},
         {"db is g * a of the first row only: b was used on every row, so add up all the rows' shares", first_row(g_times_a)},
         {"db sums g * b: da and db are swapped; b's share is g times the other operand, a", summed_over_rows(g_times_b)},
         {"db sums g alone, as an added bias's share would: multiply each g by a first", summed_over_rows(g)}});
    if (!da_right || !db_right || yours.da.shape() != a.shape() || yours.db.shape() != b.shape()) return;

    exercise::gradcheck(
        checker, "your backward as an op, gradchecked",
        [](const std::vector<Value>& in) {
            return exercise::learner_op(
                "your_multiply", in, [](const std::vector<Tensor>& v) { return wai::multiply(v[0], v[1]); },
                [](const std::vector<Tensor>& v, const Tensor&, const Tensor& grad) {
                    MultiplyGrads shares = multiply_backward(v[0], v[1], grad);
                    return std::vector<Tensor>{std::move(shares.da), std::move(shares.db)};
                });
        },
        {Value(a, true), Value(b, true)});
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"broadcast_multiply_backward", "the backward of a * b, b repeated over a's rows (the engine)",
                                      "write multiply_backward"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
