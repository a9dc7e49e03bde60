// Embedding: a (V, D) table of learned vectors, one row per token id, N(0, 1) at the start; its
// forward is the gather op of autograd/embedding.cpp. Leaves out padding indices, weight tying with
// the output layer, and sparse gradients (the table's gradient is dense).
#pragma once
#include "autograd/ops.hpp"
#include "nn/init.hpp"
#include "nn/module.hpp"

namespace wai {

class Embedding : public Module {
public:
    Embedding(int64_t r, int64_t d, Generator& generator) : rows(r), dim(d) {
        table = register_parameter("weight", embedding_init({r, d}, generator));
    }

    // indices laid out as (B, T) -> (B, T, D); an index outside the table is an error naming it.
    Value forward(const std::vector<int>& indices, const Shape& index_shape) const {
        return embedding(table, indices, index_shape);
    }

    int64_t rows, dim;
    Value table;  // (V, D)
};

}  // namespace wai
