// Block: two residual branches, each normalised on the way in. Leaves out nothing else.
#include "nn/block.hpp"

#include "autograd/ops.hpp"

namespace wai {

Block::Block(int64_t dim, int64_t heads, int64_t mlp_hidden, const PositionEncoding& position, Generator& generator)
    : norm1(dim), attention(dim, heads, position, generator), norm2(dim), mlp(dim, mlp_hidden, generator) {
    register_module("norm1", norm1);
    register_module("attention", attention);
    register_module("norm2", norm2);
    register_module("mlp", mlp);
}

Value Block::forward(const Value& x) const {
    const Value h = add(x, attention.forward(norm1.forward(x)));  // (B, T, D)
    return add(h, mlp.forward(norm2.forward(h)));                 // (B, T, D)
}

}  // namespace wai
