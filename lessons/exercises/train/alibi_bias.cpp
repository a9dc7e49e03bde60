// The ALiBi exercise in the chapter's model: your alibi_bias as the score bias of every attention
// layer, in place of the library's AlibiPositions, with the chapter's one slope for its one-head
// model: the scheme alibi:0.5, every head's slope 1/2. The bias is a constant, so nothing of yours
// takes part in the backward.
// Leaves out the geometric slopes in training (with one head they give 1/256): alibi_slopes is
// checked by make exercise EXERCISE=alibi_bias.
#include "lessons/exercises/alibi_bias.hpp"
#include "lessons/exercises/train/train.hpp"

namespace {

constexpr double chapter_slope = 0.5;

struct YourAlibi : wai::PositionEncoding {
    wai::Value score_bias(int64_t heads, int64_t T) const override {  // (NH, T, T)
        const wai::Tensor bias = alibi_bias(std::vector<double>(heads, chapter_slope), T);
        exercise::require_shape("alibi_bias", bias, wai::Shape{heads, T, T});
        return wai::Value(bias);
    }
};

std::unique_ptr<wai::PositionEncoding> yours(int64_t, int64_t, wai::Generator&) { return std::make_unique<YourAlibi>(); }

}  // namespace

int main(int argc, char** argv) { return exercise::train_with_yours(argc, argv, "alibi_bias", "alibi:0.5", yours); }
