// A wrong answer: one reordering across the whole width D, not one per head.
// expect: 1 | ^pairing_conversion: wrong answer: convert_qkv_to_half_split on a random qkv weight .*first differs at \(8, 0\) | hint: that is one reordering across the whole width D
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
    const Tensor old_weight = weight, old_bias = bias;
    const std::vector<int64_t> across = half_split_from_interleaved(D);
    (void)head_dim, (void)order;
    for (int64_t start = 0; start < 2 * D; start += D)  // every head's block of the query and key rows (one block each)
        for (int64_t j = 0; j < D; ++j) {
            for (int64_t c = 0; c < D; ++c) weight(start + j, c) = old_weight(start + across[j], c);
            bias(start + j) = old_bias(start + across[j]);
        }
}
