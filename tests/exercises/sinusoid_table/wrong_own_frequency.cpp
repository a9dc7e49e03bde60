// A wrong answer: each column c its own frequency 10000^(-c/D), where the pair (2i, 2i+1) shares one.
// expect: 1 | ^sinusoid_table: wrong answer: sinusoid_table\(10, 8\).*first differs at \(1, 1\) | hint: each column has its own frequency
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < dim; ++c) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -static_cast<double>(c) / dim);
            pe(p, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}
