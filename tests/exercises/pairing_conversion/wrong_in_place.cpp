// A wrong answer: the rows gathered in place, with no copy, so some are read after being overwritten.
// expect: 1 | ^pairing_conversion: wrong answer: convert_qkv_to_half_split on a random qkv weight .*hint: rows were overwritten before they were read
#include "lessons/exercises/pairing_conversion.hpp"

using wai::Tensor;

std::vector<int64_t> half_split_from_interleaved(int64_t head_dim) {
    std::vector<int64_t> order(head_dim);
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        order[i] = 2 * i;
        order[i + head_dim / 2] = 2 * i + 1;
    }
    return order;
}

void convert_qkv_to_half_split(Tensor& weight, Tensor& bias, int64_t head_dim, const std::vector<int64_t>& order) {
    const int64_t D = weight.size(1);
    for (int64_t start = 0; start < 2 * D; start += head_dim)  // every head's block of the query and key rows
        for (int64_t j = 0; j < head_dim; ++j) {
            for (int64_t c = 0; c < D; ++c) weight(start + j, c) = weight(start + order[j], c);
            bias(start + j) = bias(start + order[j]);
        }
}
