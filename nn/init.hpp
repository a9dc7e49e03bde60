// PyTorch's default initialisations, so our models start from the same distributions as the
// chapter's: Linear U(-1/sqrt(fan_in), +1/sqrt(fan_in)) for weight and bias, Embedding N(0, 1),
// LayerNorm weight 1 and bias 0. Leaves out other schemes (Xavier, scaled residual init).
#pragma once
#include "tensor/tensor.hpp"

namespace wai {

// (shape) ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)): what kaiming_uniform_(a=sqrt(5)) works out to.
Tensor linear_init(const Shape& shape, int64_t fan_in, Generator& generator);
// (shape) ~ N(0, 1)
Tensor embedding_init(const Shape& shape, Generator& generator);

}  // namespace wai
