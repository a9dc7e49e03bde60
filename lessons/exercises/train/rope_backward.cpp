// The RoPE backward exercise in the chapter's model: the queries and keys of every head are turned
// by the library's rotation (positional/rope.hpp), and the gradient is turned back by your
// rope_backward, slice (T, H) by slice, with the course's angles. With the same seed, a right
// backward trains the model as the library's rope op does.
// Leaves out the pairing conventions other than the interleaved one.
#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_backward.hpp"
#include "lessons/exercises/train/train.hpp"
#include "positional/rope.hpp"

namespace {

struct LibraryForwardYourBackward : wai::PositionEncoding {
    int64_t head_dim = 0;
    wai::Value rotate_queries_keys(const wai::Value& x) const override {  // (B, NH, T, H) -> (B, NH, T, H)
        const int64_t T = x.shape()[x.shape().rank() - 2];
        const wai::RopeTable table =
            wai::make_rope_table(T, wai::rope_frequencies(head_dim, 10000.0), wai::RopePairing::interleaved);
        const wai::Tensor angles = rope_angles(head_dim, T);  // (T, H/2)
        return exercise::slice_op("rope_with_your_backward", x, "rope_backward",
                                  [=](const wai::Tensor& slice) { return wai::rope_rotate(slice, table); },
                                  [=](const wai::Tensor& grad) { return rope_backward(grad, angles); });
    }
};

std::unique_ptr<wai::PositionEncoding> yours(int64_t dim, int64_t heads, wai::Generator&) {
    auto rope = std::make_unique<LibraryForwardYourBackward>();
    rope->head_dim = dim / heads;
    return rope;
}

}  // namespace

int main(int argc, char** argv) { return exercise::train_with_yours(argc, argv, "rope_backward", "rope", yours); }
