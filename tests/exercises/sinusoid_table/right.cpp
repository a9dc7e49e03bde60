// A right answer to the sinusoid table exercise, as a learner would fill in the scaffold.
// expect: 0 | ^sinusoid_table: solved$ | \[ok\] sinusoid_table\(128, 64\)
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t i = 0; 2 * i < dim; ++i) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * i / dim);
            pe(p, 2 * i) = static_cast<float>(std::sin(angle));
            pe(p, 2 * i + 1) = static_cast<float>(std::cos(angle));
        }
    return pe;
}
