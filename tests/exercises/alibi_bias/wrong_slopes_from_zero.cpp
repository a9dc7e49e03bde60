// A wrong answer: the slopes counted from k = 0 (off by one), so the first head gets 2^0 = 1.
// expect: 1 | ^alibi_bias: wrong answer: alibi_slopes\(1\).*expected 0.00390625, got 1 | hint: the first head.s slope is 1
#include <cmath>
#include <vector>

#include "lessons/exercises/alibi_bias.hpp"

using wai::Shape;
using wai::Tensor;

std::vector<double> alibi_slopes(int64_t heads) {
    const double ratio = std::pow(2.0, -8.0 / static_cast<double>(heads));  // from one head's slope to the next
    double slope = 1.0;
    std::vector<double> slopes;
    for (int64_t k = 0; k < heads; ++k, slope *= ratio) slopes.push_back(slope);
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
