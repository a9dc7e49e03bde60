// The checker of the RoPE backward exercise: your rope_backward against the library's own backward
// (the rope op of positional/rope.hpp, run backward from a random gradient), then a full-Jacobian
// gradcheck of an op whose forward is the library's rotation and whose backward is yours. Known
// slips it names: the gradient returned unchanged, the forward rotation again (turning the gradient
// forwards, the sin signs of J instead of J^T), only one of the two sin signs changed, Llama's
// half-split pairing, g1 and g2 read from each other's column, each pair's results swapped, and row
// t turned by the angles of row t - 1 or t + 1.
// Leaves out the forward: the library's rope_rotate runs it here and in training.
#include <algorithm>
#include <cmath>
#include <utility>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_backward.hpp"
#include "positional/rope.hpp"

using wai::RopePairing;
using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

constexpr double base = 10000.0;
// Gradients here are about 1 in size. float32 keeps 7 digits, and the course's float32 angles (up to
// 63 radians) differ from the library's double ones by a few 1e-6 radians: well inside 1e-4.
constexpr double gradient_tolerance = 1e-4;

wai::RopeTable library_table(int64_t T, int64_t H, RopePairing pairing = RopePairing::interleaved) {
    return wai::make_rope_table(T, wai::rope_frequencies(H, base), pairing);
}

// What a slip gives: each pair (g1, g2) = (grad[2i], grad[2i+1]) of row t, at the angle of row
// t + shift (row 0's own, 0, where that is before 0), mapped by `pair` to (dx[2i], dx[2i+1]).
template <typename Pair>
Tensor slipped(const Tensor& grad, int64_t shift, Pair pair) {
    const int64_t T = grad.size(0), H = grad.size(1);
    const std::vector<double> theta = wai::rope_frequencies(H, base);
    Tensor dx(grad.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            const double angle = static_cast<double>(std::max<int64_t>(t + shift, 0)) * theta[i];
            const auto [first, second] = pair(grad(t, 2 * i), grad(t, 2 * i + 1), std::cos(angle), std::sin(angle));
            dx(t, 2 * i) = static_cast<float>(first);
            dx(t, 2 * i + 1) = static_cast<float>(second);
        }
    return dx;
}

// J^T of the pair's rotation [[c, -s], [s, c]]: the right backward, as a pair map.
std::pair<double, double> transposed(double g1, double g2, double c, double s) { return {g1 * c + g2 * s, -g1 * s + g2 * c}; }

// The library's backward: dloss/dx of the rope op at x, seeded with dloss/dy = grad.
Tensor library_backward(const Tensor& x, const Tensor& grad) {
    Value input(x, /*requires_grad=*/true);
    Value rotated = wai::rope(input, library_table(x.size(0), x.size(1)));
    rotated.backward(grad);
    return input.grad();
}

void check(exercise::Checker& checker) {
    wai::Generator generator(2024);
    const int64_t T = 64, H = 8;
    const Tensor x = Tensor::normal(Shape{T, H}, 0.0f, 1.0f, generator);     // (T, H), the forward's input
    const Tensor grad = Tensor::normal(Shape{T, H}, 0.0f, 1.0f, generator);  // (T, H), dloss/dy
    checker.next_hint =
        "write rope_backward: in each row, multiply every pair (g[2i], g[2i+1]) by J^T, the transpose of the pair's "
        "rotation [[cos, -sin], [sin, cos]]";
    const Tensor yours = rope_backward(grad, rope_angles(H, T, base));
    const wai::RopeTable table = library_table(T, H);
    checker.compare(
        "rope_backward of a random (64, 8) gradient, against the library's rope op backward", yours,
        library_backward(x, grad), gradient_tolerance,
        {{"it returns the gradient unchanged: the rotation's Jacobian is not the identity", grad},
         {"that turns the gradient forwards, as the forward turns x; the backward is J^T, the rotation backwards: "
          "the sin terms change sign",
          wai::rope_rotate(grad, table)},
         {"it pairs dimension i with i + H/2 (Llama's rotate_half); here pairs are (2i, 2i + 1)",
          wai::rope_rotate(grad, library_table(T, H, RopePairing::half_split), /*inverse=*/true)},
         {"only one sin term changed sign: J^T = [[cos, sin], [-sin, cos]] changes both (dx[2i] = g1 cos + g2 sin, "
          "dx[2i+1] = -g1 sin + g2 cos)",
          slipped(grad, 0, [](double g1, double g2, double c, double s) { return std::pair{g1 * c + g2 * s, g1 * s + g2 * c}; })},
         {"only one sin term changed sign: J^T = [[cos, sin], [-sin, cos]] changes both (dx[2i] = g1 cos + g2 sin, "
          "dx[2i+1] = -g1 sin + g2 cos)",
          slipped(grad, 0, [](double g1, double g2, double c, double s) { return std::pair{g1 * c - g2 * s, -g1 * s + g2 * c}; })},
         {"g1 and g2 are swapped (at position 0 too, where the backward must leave the gradient as it is): g1 is "
          "grad[2i], g2 is grad[2i + 1]",
          slipped(grad, 0, [](double g1, double g2, double c, double s) { return transposed(g2, g1, c, s); })},
         {"each pair's two results are swapped (at position 0 too, where the backward must leave the gradient as it "
          "is): dx[2i] takes g1 cos + g2 sin, dx[2i+1] takes -g1 sin + g2 cos",
          slipped(grad, 0, [](double g1, double g2, double c, double s) {
              const auto [first, second] = transposed(g1, g2, c, s);
              return std::pair{second, first};
          })},
         {"row t is turned by the angles of row t - 1: row t takes angles(t, i)", slipped(grad, -1, transposed)},
         {"row t is turned by the angles of row t + 1: row t takes angles(t, i)", slipped(grad, +1, transposed)}});

    // The gradcheck builds the whole Jacobian (two forwards per input number), so a small block:
    // (5, 6), angles up to 4 radians, three pairs turning at three different speeds.
    const int64_t small_T = 5, small_H = 6;
    const wai::RopeTable small_table = library_table(small_T, small_H);
    const Tensor small_angles = rope_angles(small_H, small_T, base);
    const Value small_x(Tensor::normal(Shape{small_T, small_H}, 0.0f, 1.0f, generator), /*requires_grad=*/true);
    exercise::gradcheck(
        checker, "gradcheck of the library's rotation forward with your backward, (5, 6)",
        [&](const std::vector<Value>& inputs) {
            return exercise::learner_op(
                "rope_with_your_backward", inputs,
                [&](const std::vector<Tensor>& values) { return wai::rope_rotate(values[0], small_table); },
                [&](const std::vector<Tensor>&, const Tensor&, const Tensor& out_grad) {
                    return std::vector<Tensor>{rope_backward(out_grad, small_angles)};
                });
        },
        {small_x});
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"rope_backward", "RoPE's backward: the rotation's transpose (Where Am I?, \"RoPE: rotate, so only the difference counts\")",
                                      "write rope_backward"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
