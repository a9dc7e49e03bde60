// The RoPE rotation exercise in the chapter's model: your apply_rope rotates the queries and keys of
// every head, slice (T, H) by slice, with the course's angles; its backward is your apply_rope with
// the angles negated, since a rotation's transpose is the rotation backwards.
// Leaves out the pairing conventions other than the course's interleaved one.
#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_rotation.hpp"
#include "lessons/exercises/train/train.hpp"

namespace {

// apply_rope on every (T, H) slice of x (..., T, H), with angles (T, H/2).
wai::Tensor rotate_slices(const wai::Tensor& x, const wai::Tensor& angles) {
    const int64_t T = x.shape()[x.rank() - 2], H = x.shape().last(), slices = x.numel() / (T * H);
    wai::Tensor out(x.shape());
    for (int64_t s = 0; s < slices; ++s) {
        wai::Tensor slice(wai::Shape{T, H});
        std::copy_n(x.data() + s * T * H, T * H, slice.data());
        const wai::Tensor rotated = apply_rope(slice, angles);
        if (rotated.shape() != slice.shape()) throw std::invalid_argument("apply_rope returned shape " + rotated.shape().str() + " for (T, H) = " + slice.shape().str());
        std::copy_n(rotated.data(), T * H, out.data() + s * T * H);
    }
    return out;
}

class YourRope : public wai::PositionEncoding {
public:
    explicit YourRope(int64_t head_dim) : head_dim_(head_dim) {}
    wai::Value rotate_queries_keys(const wai::Value& x) const override {  // (B, NH, T, H) -> (B, NH, T, H)
        const int64_t T = x.shape()[x.shape().rank() - 2];
        const wai::Tensor angles = rope_angles(head_dim_, T);
        wai::Tensor backwards = angles;
        for (int64_t i = 0; i < backwards.numel(); ++i) backwards[i] = -angles[i];
        return exercise::learner_op(
            "your_rope", {x}, [angles](const std::vector<wai::Tensor>& in) { return rotate_slices(in[0], angles); },
            [backwards](const std::vector<wai::Tensor>&, const wai::Tensor&, const wai::Tensor& grad) {
                return std::vector<wai::Tensor>{rotate_slices(grad, backwards)};
            });
    }
    std::string spec() const override { return "rope"; }

private:
    int64_t head_dim_;
};

}  // namespace

int main(int argc, char** argv) {
    return exercise::train_with_yours(argc, argv, "rope_rotation", "rope",
                                      [](int64_t dim, int64_t heads, wai::Generator&) -> std::unique_ptr<wai::PositionEncoding> {
                                          return std::make_unique<YourRope>(dim / heads);
                                      });
}
