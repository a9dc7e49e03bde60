// Learned positions: the embedding gather with positions 0..T-1 as the indices.
// Leaves out offsets: a sequence always starts at position 0.
#include "positional/learned.hpp"

#include <numeric>
#include <stdexcept>

#include "autograd/ops.hpp"
#include "nn/init.hpp"

namespace wai {

LearnedPositions::LearnedPositions(int64_t r, int64_t d, Generator& generator) : rows(r), dim(d) {
    table = register_parameter("weight", embedding_init({r, d}, generator));
}

Value LearnedPositions::add_to_embeddings(const Value& h) const {
    const int64_t T = h.shape()[1];
    if (T > rows)
        throw std::out_of_range("learned positions: position " + std::to_string(rows) + " is past the table's " +
                                std::to_string(rows) + " rows (positions 0.." + std::to_string(rows - 1) +
                                "); a sequence of length " + std::to_string(T) + " needs " + std::to_string(T) + " rows");
    std::vector<int> positions(T);
    std::iota(positions.begin(), positions.end(), 0);
    return add(h, embedding(table, positions, Shape{T}));  // (B, T, D) + (T, D)
}

}  // namespace wai
