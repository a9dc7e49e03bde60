// A wrong answer: the exponent 2i/D divided in integers, so every pair has frequency 1.
// expect: 1 | ^sinusoid_table: wrong answer: .*first differs at \(1, 2\) | hint: every pair turns at frequency 1.*integer division
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t i = 0; 2 * i < dim; ++i) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -static_cast<double>(2 * i / dim));
            pe(p, 2 * i) = static_cast<float>(std::sin(angle));
            pe(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
        }
    return pe;
}
