// A wrong answer: 2^(-8k/NH) with 8k/NH divided in integers. Right for 1, 4 and 8 heads, where NH
// divides 8k; at 12 heads the first slope is 2^0 = 1. The checker names the integer division.
// expect: 1 | ^alibi_bias: wrong answer: alibi_slopes\(12\).*expected 0.629961, got 1 .*hint: 8k/NH is an integer division here | \[ok\] alibi_slopes\(1\) | \[ok\] alibi_slopes\(4\) | \[ok\] alibi_slopes\(8\)
#include <cmath>
#include <vector>

#include "lessons/exercises/alibi_bias.hpp"

using wai::Shape;
using wai::Tensor;

std::vector<double> alibi_slopes(int64_t heads) {
    std::vector<double> slopes;
    for (int64_t k = 1; k <= heads; ++k) slopes.push_back(std::pow(2.0, -8 * k / heads));
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
