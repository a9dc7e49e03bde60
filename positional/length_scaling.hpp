// Log-length scaling of attention scores (Chiang & Cholak 2022): at test length T, multiply every
// score by log(T) / log(T_train), so a softmax over T keys is as sharp as it was over T_train.
// It changes nothing learned; the factor is 1 at the training length. Leaves out learned scales.
#pragma once
#include <cmath>
#include <cstdint>

namespace wai {

inline float log_length_scale(int64_t T, int64_t train_length) {
    return static_cast<float>(std::log(static_cast<double>(T)) / std::log(static_cast<double>(train_length)));
}

}  // namespace wai
