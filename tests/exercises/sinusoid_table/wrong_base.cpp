// A wrong answer: base 1000 in place of 10000.
// expect: 1 | ^sinusoid_table: wrong answer: sinusoid_table\(10, 8\).*first differs at \(1, 2\) | hint: the base is 1000
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t i = 0; 2 * i < dim; ++i) {
            const double angle = static_cast<double>(p) * std::pow(1000.0, -2.0 * i / dim);
            pe(p, 2 * i) = static_cast<float>(std::sin(angle));
            pe(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
        }
    return pe;
}
