// A wrong answer: the cos in the even column and the sin in the odd one.
// expect: 1 | ^sinusoid_table: wrong answer: sinusoid_table\(10, 8\).*first differs at \(0, 0\): expected 0, got 1 | hint: sin and cos are swapped
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t i = 0; 2 * i < dim; ++i) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * i / dim);
            pe(p, 2 * i) = static_cast<float>(std::cos(angle));
            pe(p, 2 * i + 1) = static_cast<float>(std::sin(angle));
        }
    return pe;
}
