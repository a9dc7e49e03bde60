// The sinusoid table, computed in double and rounded once. Leaves out caching: it is cheap.
#include "positional/sinusoid.hpp"

#include <cmath>

#include "autograd/ops.hpp"

namespace wai {

Tensor sinusoid_table(int64_t positions, int64_t dim, double base) {
    Tensor table(Shape{positions, dim});
    for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < dim; ++c) {
            const int64_t i2 = c - c % 2;  // 2i, shared by the pair (2i, 2i+1)
            const double angle = static_cast<double>(p) * std::pow(base, -static_cast<double>(i2) / dim);
            table[p * dim + c] = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return table;
}

Value SinusoidPositions::add_to_embeddings(const Value& h) const {
    return add(h, Value(sinusoid_table(h.shape()[1], dim)));  // (B, T, D)
}

}  // namespace wai
