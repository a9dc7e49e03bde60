// A wrong answer, the most common slip: the loop runs over the even columns c = 2i and writes
// 10000^(-2c/D), so the 2 of -2i/D is there twice. The small table's difference comes first: at
// position 1, column 2, sin 0.01 where sin 0.1 belongs.
// expect: 1 | ^sinusoid_table: wrong answer: sinusoid_table\(10, 8\).*first differs at \(1, 2\): expected 0\.0998.*, got 0\.0099 | hint: the exponent is -4i/D: the 2 of -2i/D is there twice
#include <cmath>

#include "lessons/exercises/sinusoid_table.hpp"

using wai::Shape;
using wai::Tensor;

Tensor sinusoid_table(int64_t positions, int64_t dim) {
    Tensor pe(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < dim; c += 2) {
            const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * c / dim);
            pe(p, c) = static_cast<float>(std::sin(angle));
            pe(p, c + 1) = static_cast<float>(std::cos(angle));
        }
    return pe;
}
