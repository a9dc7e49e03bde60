// The RoPE backward exercise in the chapter's model: the queries and keys of every head are turned
// by the library's rotation (positional/rope.hpp), and the gradient is turned back by your
// rope_backward, slice (T, H) by slice, with the course's angles. With the same seed, a right
// backward trains the model as the library's rope op does.
// Leaves out the pairing conventions other than the interleaved one.
#include <algorithm>
#include <stdexcept>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_backward.hpp"
#include "lessons/exercises/train/train.hpp"
#include "positional/rope.hpp"

namespace {

// grad (..., T, H) -> (..., T, H): rope_backward on each (T, H) slice, with angles (T, H/2).
wai::Tensor turn_back_slices(const wai::Tensor& grad, const wai::Tensor& angles) {
    const int64_t T = angles.size(0), H = 2 * angles.size(1), slice_size = T * H;
    wai::Tensor dx(grad.shape());
    for (int64_t start = 0; start < grad.numel(); start += slice_size) {
        wai::Tensor slice(wai::Shape{T, H});
        std::copy(grad.data() + start, grad.data() + start + slice_size, slice.data());
        const wai::Tensor share = rope_backward(slice, angles);
        if (share.shape() != slice.shape())
            throw std::invalid_argument("rope_backward returned shape " + share.shape().str() + " for a gradient of shape " +
                                        slice.shape().str());
        std::copy(share.data(), share.data() + slice_size, dx.data() + start);
    }
    return dx;
}

class LibraryForwardYourBackward : public wai::PositionEncoding {
public:
    explicit LibraryForwardYourBackward(int64_t head_dim) : head_dim_(head_dim) {}
    wai::Value rotate_queries_keys(const wai::Value& x) const override {  // (B, NH, T, H) -> (B, NH, T, H)
        const int64_t T = x.shape()[x.shape().rank() - 2];
        const wai::RopeTable table =
            wai::make_rope_table(T, wai::rope_frequencies(head_dim_, 10000.0), wai::RopePairing::interleaved);
        const wai::Tensor angles = rope_angles(head_dim_, T);
        return exercise::learner_op(
            "rope_with_your_backward", {x},
            [table](const std::vector<wai::Tensor>& in) { return wai::rope_rotate(in[0], table); },
            [angles](const std::vector<wai::Tensor>&, const wai::Tensor&, const wai::Tensor& grad) {
                return std::vector<wai::Tensor>{turn_back_slices(grad, angles)};
            });
    }
    std::string spec() const override { return "rope"; }

private:
    int64_t head_dim_;
};

}  // namespace

int main(int argc, char** argv) {
    return exercise::train_with_yours(argc, argv, "rope_backward", "rope",
                                      [](int64_t dim, int64_t heads, wai::Generator&) -> std::unique_ptr<wai::PositionEncoding> {
                                          return std::make_unique<LibraryForwardYourBackward>(dim / heads);
                                      });
}
