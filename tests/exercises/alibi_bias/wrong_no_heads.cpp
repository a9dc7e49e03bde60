// A wrong answer: 2^(-k), NH left out of the exponent (right for 8 heads only). At 1 head it gives
// what 2^(-k/NH) gives, so that line names both slips; at 4 heads only this one fits.
// expect: 1 | ^alibi_bias: wrong answer: alibi_slopes\(1\).*expected 0.00390625, got 0.5 .*hint: the 8 is missing, or NH is | hint: NH is missing from the exponent | \[ok\] alibi_slopes\(8\)
#include <cmath>

#include "lessons/exercises/alibi_bias.hpp"


using wai::Shape;
using wai::Tensor;

std::vector<double> alibi_slopes(int64_t heads) {
    const double ratio = std::pow(2.0, -1.0);  // NH forgotten: 1/2 from one head to the next, whatever NH
    double slope = 1.0;
    std::vector<double> slopes;
    for (int64_t k = 1; k <= heads; ++k) slopes.push_back(slope *= ratio);
    return slopes;
}

Tensor alibi_bias(const std::vector<double>& slopes, int64_t T) {
    const int64_t heads = static_cast<int64_t>(slopes.size());
    Tensor bias(Shape{heads, T, T});  // (NH, T, T), 0 until written
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t back = 0; back <= m; ++back) bias(h, m, m - back) = static_cast<float>(-slopes[h] * back);
    return bias;
}
