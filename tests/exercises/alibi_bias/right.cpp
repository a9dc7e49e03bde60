// A right answer to the ALiBi exercise: the slopes as a geometric sequence, each the one before times
// 2^(-8/NH), and the penalty walked back from the diagonal.
// expect: 0 | ^alibi_bias: solved$ | \[ok\] alibi_slopes\(12\) | \[ok\] alibi_bias\(alibi_slopes\(8\), 32\)
#include <cmath>
#include <vector>

#include "lessons/exercises/alibi_bias.hpp"

using wai::Shape;
using wai::Tensor;

std::vector<double> alibi_slopes(int64_t heads) {
    const double ratio = std::pow(2.0, -8.0 / static_cast<double>(heads));  // from one head's slope to the next
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
