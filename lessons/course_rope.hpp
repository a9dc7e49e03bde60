// The course's rope_angles, as its PyTorch computes it in float32, for lesson 06 and the RoPE
// rotation exercise (LLM Mastery 23, "Exercise"):
//   freqs  = 1 / base^(arange(0, H, 2) / H)      one frequency per pair of dimensions
//   angles = outer(arange(seq_len), freqs)       (T, H/2)
// Leaves out the rotation itself: writing it is the exercise (lesson 06 is the worked solution).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace course {

inline wai::Tensor rope_angles(int64_t head_dim, int64_t seq_len, double base = 10000.0) {  // (T, H/2)
    const int64_t pairs = head_dim / 2;
    std::vector<float> freqs(pairs);
    for (int64_t i = 0; i < pairs; ++i)
        freqs[i] = 1.0f / std::pow(static_cast<float>(base), static_cast<float>(2 * i) / static_cast<float>(head_dim));
    wai::Tensor angles(wai::Shape{seq_len, pairs});
    for (int64_t t = 0; t < seq_len; ++t)
        for (int64_t i = 0; i < pairs; ++i) angles(t, i) = static_cast<float>(t) * freqs[i];
    return angles;
}

}  // namespace course
