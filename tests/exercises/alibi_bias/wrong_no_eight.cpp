// A wrong answer: 2^(-k/NH), the 8 forgotten.
// expect: 1 | ^alibi_bias: wrong answer: alibi_slopes\(1\).*expected 0.00390625, got 0.5 | hint: the 8 is missing
#include <cmath>
#include <vector>

#include "lessons/exercises/alibi_bias.hpp"

using wai::Shape;
using wai::Tensor;

std::vector<double> alibi_slopes(int64_t heads) {
    const double ratio = std::pow(2.0, -1.0 / static_cast<double>(heads));  // from one head's slope to the next
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
