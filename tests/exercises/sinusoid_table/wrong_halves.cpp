// A wrong answer: the sins in the first half of the row, the cosines in the second.
// expect: 1 | ^sinusoid_table: wrong answer: .*first differs at \(0, 1\) | hint: the sins fill the first half of the row
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t i = 0; 2 * i < dim; ++i) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * i / dim);
            pe(p, i) = static_cast<float>(std::sin(angle));
            pe(p, dim / 2 + i) = static_cast<float>(std::cos(angle));
        }
    return pe;
}
