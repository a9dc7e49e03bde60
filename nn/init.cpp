// PyTorch-default initialisation. Leaves out fan_out and gain variants.
#include "nn/init.hpp"

#include <cmath>

namespace wai {

Tensor linear_init(const Shape& shape, int64_t fan_in, Generator& generator) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    return Tensor::uniform(shape, -bound, bound, generator);
}

Tensor embedding_init(const Shape& shape, Generator& generator) { return Tensor::normal(shape, 0.0f, 1.0f, generator); }

}  // namespace wai
