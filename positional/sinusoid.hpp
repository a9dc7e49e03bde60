// Sinusoidal absolute positions (Vaswani et al. 2017): a fixed table added to the token embeddings,
// pe[p, 2i] = sin(p * 10000^(-2i/D)), pe[p, 2i+1] = cos(p * 10000^(-2i/D)).
// Leaves out learning or scaling the table; it has no parameters.
#pragma once
#include "nn/position.hpp"

namespace wai {

Tensor sinusoid_table(int64_t positions, int64_t dim, double base = 10000.0);  // (T, D)

class SinusoidPositions : public PositionEncoding {
public:
    explicit SinusoidPositions(int64_t dim) : dim(dim) {}
    Value add_to_embeddings(const Value& h) const override;  // (B, T, D) + table (T, D)
    std::string spec() const override { return "sinusoid"; }
    int64_t dim;
};

}  // namespace wai
