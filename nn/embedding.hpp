// Embedding: a (V, D) table of learned vectors, one row per token id, N(0, 1) at the start.
// Leaves out padding indices and weight tying with the output layer.
#pragma once
#include "nn/module.hpp"

namespace wai {

class Embedding : public Module {
public:
    Embedding(int64_t rows, int64_t dim, Generator& generator);
    // indices laid out as (B, T) -> (B, T, D); an index outside the table is an error naming it.
    Value forward(const std::vector<int>& indices, const Shape& index_shape) const;

    int64_t rows, dim;
    Value table;  // (V, D)
};

}  // namespace wai
