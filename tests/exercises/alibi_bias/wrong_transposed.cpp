// A wrong answer: the penalty written at [h, n, m] for [h, m, n] (the transpose), above the diagonal
// where the mask hides it.
// expect: 1 | ^alibi_bias: wrong answer: alibi_bias.*first differs at \(0, 1, 0\): expected -0.25, got 0 | hint: your penalty is 0 wherever the mask lets a query see
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
            for (int64_t back = 0; back <= m; ++back) bias(h, m - back, m) = static_cast<float>(-slopes[h] * back);
    return bias;
}
