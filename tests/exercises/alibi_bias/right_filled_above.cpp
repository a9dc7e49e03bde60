// A right answer that writes -slope * (m - n) for every key, above the diagonal too: only noted, the
// mask hides it.
// expect: 0 | ^alibi_bias: solved$ | note: above the diagonal .* a reward for keys after the query | \[ok\] under the causal mask your whole bias gives
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
            for (int64_t n = 0; n < T; ++n) bias(h, m, n) = static_cast<float>(-slopes[h] * double(m - n));
    return bias;
}
