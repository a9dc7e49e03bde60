// PyTorch's default initialisations, so our models start from the same distributions as the
// chapter's: Linear U(-1/sqrt(fan_in), +1/sqrt(fan_in)) for weight and bias, Embedding N(0, 1),
// LayerNorm weight 1 and bias 0. Leaves out other schemes (Xavier, scaled residual init).
#pragma once
#include <cmath>

#include "tensor/tensor.hpp"

namespace wai {

// (shape) ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)): what kaiming_uniform_(a=sqrt(5)) works out to.
inline Tensor linear_init(const Shape& shape, int64_t fan_in, Generator& generator) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    return Tensor::uniform(shape, -bound, bound, generator);
}

// (shape) ~ N(0, 1)
inline Tensor embedding_init(const Shape& shape, Generator& generator) { return Tensor::normal(shape, 0.0f, 1.0f, generator); }

}  // namespace wai
