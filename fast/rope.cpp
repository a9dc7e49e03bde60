// fast::rope: forward as the plain op, backward R(-t theta) applied to the gradient in place.
// Leaves out the table and the rotation kernels (positional/rope.cpp).
#include "fast/rope.hpp"

namespace wai::fast {

namespace {  // each op type is private to its file

// Its forward is the plain rotation, recorded by fast::rope below.
struct RopeInPlaceBackward final : Op {
    RopeTable table;  // a copy: the op must outlive the caller's table
    explicit RopeInPlaceBackward(RopeTable t) : table(std::move(t)) {}
    // dx += R(-t * theta) g, rotated where g lies
    void backward(Node& out) override {
        if (!out.parents[0].requires_grad()) return;
        Tensor dx = take_incoming_grad(out);
        rope_rotate_inplace(dx, table, /*inverse=*/true);
        out.parents[0].accumulate_grad(std::move(dx));
    }
};

}  // namespace

Value rope(const Value& x, const RopeTable& table) {  // y = R(t * theta) x, pair by pair
    return record("rope", rope_rotate(x.value(), table), {x}, std::make_unique<RopeInPlaceBackward>(table));
}

}  // namespace wai::fast
