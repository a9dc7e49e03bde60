// The checker of the sinusoid table exercise: your sinusoid_table against the library's
// (positional/sinusoid.hpp) on a small table first (its numbers can be worked out by hand), the
// smallest one, then the chapter's model, D = 64 over the 128 positions of its longest test. Known
// slips it names, each computed from the library's own table or its formula: sin and cos swapped,
// the exponent -i/D or -4i/D in place of -2i/D (the frequency index off by a factor of two either
// way), each column its own frequency (c in place of the pair's 2i), the sign of
// the exponent, base 1000, the sin in both columns of a pair, positions counted from 1, 2i/D divided
// in integers (every frequency 1), the sins and cosines in two halves instead of interleaved.
// Leaves out odd widths: the model's D is even, and a pair needs both its columns.
#include <cmath>
#include <string>
#include <vector>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/sinusoid_table.hpp"
#include "positional/sinusoid.hpp"

using wai::Shape;
using wai::Tensor;

namespace {

// The table's numbers lie in [-1, 1]. An angle worked out in float rather than double is off by a few
// float roundings of itself, p * 6e-8 each: about 2e-5 at position 127. Every slip below is off by
// far more (at least 0.01 somewhere in the (128, 64) table).
constexpr double tolerance = 1e-4;

// (T, D) -> (T, D): out(p, c) = table(p, column(c)), the columns of `table` read in another order.
template <typename Column>
Tensor columns_of(const Tensor& table, int64_t dim, Column column) {
    Tensor out(Shape{table.size(0), dim});
    for (int64_t p = 0; p < table.size(0); ++p)
        for (int64_t c = 0; c < dim; ++c) out(p, c) = table(p, column(c));
    return out;
}

// A (T, D) table with pair i at the frequency `frequency(i)`, each angle in double: the sin in column
// 2i, the cos in 2i + 1.
template <typename Frequency>
Tensor table_with_frequencies(int64_t T, int64_t D, Frequency frequency) {
    Tensor out(Shape{T, D});
    for (int64_t p = 0; p < T; ++p)
        for (int64_t i = 0; i < D / 2; ++i) {
            const double angle = static_cast<double>(p) * frequency(i);
            out(p, 2 * i) = static_cast<float>(std::sin(angle));
            out(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
        }
    return out;
}

// What each known slip gives for a (T, D) table, from the library's tables.
std::vector<exercise::Slip> slips(int64_t T, int64_t D) {
    const Tensor right = wai::sinusoid_table(T, D);
    // The table of twice the width has pair j at 10000^(-2j/2D) = 10000^(-j/D): frequency index j.
    const Tensor wide = wai::sinusoid_table(T, 2 * D);
    const Tensor one_later = wai::sinusoid_table(T + 1, D);
    Tensor from_one(right.shape());
    for (int64_t p = 0; p < T; ++p)
        for (int64_t c = 0; c < D; ++c) from_one(p, c) = one_later(p + 1, c);
    return {
        {"sin and cos are swapped: the even column 2i holds the sin, the odd column 2i+1 the cos",
         columns_of(right, D, [](int64_t c) { return c ^ 1; })},
        {"the exponent is -i/D: with i the pair's number, it is -2i/D (the pair (2i, 2i+1) has the frequency "
         "10000^(-2i/D)); your frequencies fall half as fast",
         columns_of(wide, D, [](int64_t c) { return c; })},
        {"the exponent is -4i/D: the 2 of -2i/D is there twice (with c = 2i the column, the exponent is -c/D, not "
         "-2c/D); the pair (2i, 2i+1) has the frequency 10000^(-2i/D), and yours fall twice as fast",
         table_with_frequencies(T, D, [D](int64_t i) { return std::pow(10000.0, -4.0 * static_cast<double>(i) / static_cast<double>(D)); })},
        {"each column has its own frequency 10000^(-c/D); both columns of the pair (2i, 2i+1) share 10000^(-2i/D)",
         columns_of(wide, D, [](int64_t c) { return c % 2 == 0 ? 2 * c : 2 * c + 1; })},
        {"the exponent's sign: the frequency is 10000^(-2i/D), falling from 1 at pair 0; yours rises",
         wai::sinusoid_table(T, D, 1e-4)},
        {"the base is 1000; Vaswani's is 10000", wai::sinusoid_table(T, D, 1000.0)},
        {"the odd columns hold the sin too: column 2i+1 is the cos of the pair's angle",
         columns_of(right, D, [](int64_t c) { return c - c % 2; })},
        {"positions start at 1: row p is position p, and row 0 is position 0 (sin 0 = 0, cos 0 = 1)", from_one},
        {"every pair turns at frequency 1, as pair 0 does: 2i/D is an integer division here (C++ drops the fraction "
         "of int / int, so it is 0 for every pair below D/2); write 2.0 * i / D",
         columns_of(right, D, [](int64_t c) { return c % 2; })},
        {"the sins fill the first half of the row and the cosines the second (the layout of some libraries); here "
         "they are interleaved: pair i's sin at column 2i, its cos at 2i+1",
         columns_of(right, D, [D](int64_t c) { return c < D / 2 ? 2 * c : 2 * (c - D / 2) + 1; })},
    };
}

void check(exercise::Checker& checker) {
    struct Size {
        int64_t positions, dim;
        const char* why;
    };
    // The small table first: its first difference is a number a learner can work out by hand.
    const Size sizes[] = {{10, 8, "a small table"},
                          {1, 2, "one position, one pair"},
                          {128, 64, "the chapter's model: D = 64, up to its longest test length"}};
    for (const Size& size : sizes) {
        const Tensor yours = sinusoid_table(size.positions, size.dim);
        checker.compare("sinusoid_table(" + std::to_string(size.positions) + ", " + std::to_string(size.dim) + "), " +
                            size.why + ", against the library's",
                        yours, wai::sinusoid_table(size.positions, size.dim), tolerance, slips(size.positions, size.dim));
    }
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"sinusoid_table",
     "Vaswani's sinusoid position table (Where Am I?, \"Adding position to the tokens\")",
     "write sinusoid_table(positions, dim): a (T, D) table, the sin of p * 10000^(-2i/D) in column "
                                      "2i and its cos in column 2i+1"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
