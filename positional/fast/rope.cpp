// fast::rope: forward as the plain op, backward R(-t theta) applied to the gradient in place.
// Leaves out the table and the rotation kernels (positional/rope.cpp).
#include "positional/fast/rope.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

struct Rope final : Op {
    const RopeTable table;  // a copy: the op must outlive the caller's table
    explicit Rope(RopeTable t) : table(std::move(t)) {}
    // y = R(t * theta) x, pair by pair
    static Value forward(const Value& x, const RopeTable& table) {
        return record("rope", rope_rotate(x.value(), table), {x}, std::make_unique<Rope>(table));
    }
    // dx += R(-t * theta) g, rotated where g lies
    void backward(Node& out) override {
        Value& x = out.parents[0];
        if (!x.requires_grad()) return;
        Tensor dx = take_incoming_grad(out);
        rope_rotate_inplace(dx, table, /*inverse=*/true);
        x.accumulate_grad(std::move(dx));
    }
};

}  // namespace

Value rope(const Value& x, const RopeTable& table) { return Rope::forward(x, table); }

}  // namespace wai::fast
