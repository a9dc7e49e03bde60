// The RoPE rotation exercise in the chapter's model: your apply_rope rotates the queries and keys of
// every head, slice (T, H) by slice, with the course's angles; its backward is your apply_rope with
// the angles negated, since a rotation's transpose is the rotation backwards.
// Leaves out the pairing conventions other than the course's interleaved one.
#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_rotation.hpp"
#include "lessons/exercises/train/train.hpp"
#include "tensor/elementwise.hpp"

namespace {

struct YourRope : wai::PositionEncoding {
    int64_t head_dim = 0;
    wai::Value rotate_queries_keys(const wai::Value& x) const override {  // (B, NH, T, H) -> (B, NH, T, H)
        const wai::Tensor angles = rope_angles(head_dim, x.shape()[x.shape().rank() - 2]);  // (T, H/2)
        const wai::Tensor backwards = wai::scale(angles, -1.0f);  // R(-angle) = R(angle)^T
        return exercise::slice_op("your_rope", x, "apply_rope", [=](const wai::Tensor& slice) { return apply_rope(slice, angles); },
                                  [=](const wai::Tensor& grad) { return apply_rope(grad, backwards); });
    }
};

std::unique_ptr<wai::PositionEncoding> yours(int64_t dim, int64_t heads, wai::Generator&) {
    auto rope = std::make_unique<YourRope>();
    rope->head_dim = dim / heads;
    return rope;
}

}  // namespace

int main(int argc, char** argv) { return exercise::train_with_yours(argc, argv, "rope_rotation", "rope", yours); }
