// Embedding: a parameter table and the gather op of autograd/embedding.cpp.
// Leaves out sparse gradients: the table's gradient is dense.
#include "nn/embedding.hpp"

#include "autograd/ops.hpp"
#include "nn/init.hpp"

namespace wai {

Embedding::Embedding(int64_t r, int64_t d, Generator& generator) : rows(r), dim(d) {
    table = register_parameter("weight", embedding_init({r, d}, generator));
}

Value Embedding::forward(const std::vector<int>& indices, const Shape& index_shape) const {
    return embedding(table, indices, index_shape);
}

}  // namespace wai
