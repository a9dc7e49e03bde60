// Learned absolute positions (GPT-2): a (rows, D) table of parameters, N(0, 1) at the start, row t
// added to the token at position t. A position at or past `rows` has no row: it is an error, the
// course's "failure mode", never a silent clamp. Leaves out interpolating the table.
#pragma once
#include "nn/position.hpp"

namespace wai {

class LearnedPositions : public PositionEncoding {
public:
    LearnedPositions(int64_t rows, int64_t dim, Generator& generator);
    Value add_to_embeddings(const Value& h) const override;  // (B, T, D) + table[0..T) (T, D)
    std::string spec() const override { return "learned"; }

    int64_t rows, dim;
    Value table;  // (rows, D)
};

}  // namespace wai
