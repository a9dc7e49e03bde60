// ALiBi: the slopes and the constant penalty added to the scores. Leaves out caching the penalty.
#include "positional/alibi.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace wai {

std::vector<double> alibi_slopes(int64_t heads) {
    if (heads <= 0) throw std::invalid_argument("alibi: the number of heads must be positive");
    std::vector<double> slopes(heads);
    for (int64_t k = 1; k <= heads; ++k) slopes[k - 1] = std::pow(2.0, -8.0 * static_cast<double>(k) / heads);
    return slopes;
}

Tensor alibi_bias(const std::vector<double>& slopes, int64_t T) {
    const int64_t heads = static_cast<int64_t>(slopes.size());
    Tensor bias(Shape{heads, T, T});
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = 0; n <= m; ++n) bias[(h * T + m) * T + n] = static_cast<float>(-slopes[h] * (m - n));
    return bias;
}

Value AlibiPositions::score_bias(int64_t heads, int64_t T) const {
    return Value(alibi_bias(slope > 0.0 ? std::vector<double>(heads, slope) : alibi_slopes(heads), T));
}

std::string AlibiPositions::spec() const {
    if (slope <= 0.0) return "alibi";
    std::ostringstream s;
    s << "alibi:" << slope;
    return s.str();
}

}  // namespace wai
