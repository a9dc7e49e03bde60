// ALiBi (Press, Smith & Lewis 2022): subtract slope * (m - n) from the score of query m and key n <= m.
// With NH heads and no slope given, head k (1..NH) gets 2^(-8k/NH): 1/2 ... 1/256 for 8 heads.
// Leaves out learned slopes and the non-causal (symmetric) variant.
#pragma once
#include <vector>

#include "nn/position.hpp"

namespace wai {

std::vector<double> alibi_slopes(int64_t heads);  // 2^(-8k/NH), k = 1..NH
// (NH, T, T): entry [h, m, n] = -slopes[h] * (m - n) for n <= m, 0 above the diagonal (masked anyway).
Tensor alibi_bias(const std::vector<double>& slopes, int64_t T);

class AlibiPositions : public PositionEncoding {
public:
    // slope <= 0 means "the geometric slopes for however many heads the model has".
    explicit AlibiPositions(double slope = 0.0) : slope(slope) {}
    Value score_bias(int64_t heads, int64_t T) const override;  // (NH, T, T), a constant
    std::string spec() const override;
    double slope;
};

}  // namespace wai
