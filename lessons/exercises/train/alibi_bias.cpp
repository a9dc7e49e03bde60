// The ALiBi exercise in the chapter's model: your alibi_bias as the score bias of every attention
// layer, in place of the library's AlibiPositions, with the chapter's one slope for its one-head
// model: the scheme alibi:0.5, every head's slope 1/2. The bias is a constant, so nothing of yours
// takes part in the backward.
// Leaves out the geometric slopes in training (with one head they give 1/256): alibi_slopes is
// checked by make exercise EXERCISE=alibi_bias.
#include <stdexcept>

#include "lessons/exercises/alibi_bias.hpp"
#include "lessons/exercises/train/train.hpp"

namespace {

constexpr double chapter_slope = 0.5;

class YourAlibi : public wai::PositionEncoding {
public:
    wai::Value score_bias(int64_t heads, int64_t T) const override {  // (NH, T, T)
        const wai::Tensor bias = alibi_bias(std::vector<double>(heads, chapter_slope), T);
        if (bias.shape() != wai::Shape{heads, T, T})
            throw std::invalid_argument("alibi_bias returned shape " + bias.shape().str() + " for (NH, T, T) = " +
                                        wai::Shape{heads, T, T}.str());
        return wai::Value(bias);
    }
    std::string spec() const override { return "alibi:0.5"; }
};

}  // namespace

int main(int argc, char** argv) {
    return exercise::train_with_yours(argc, argv, "alibi_bias", "alibi:0.5",
                                      [](int64_t, int64_t, wai::Generator&) -> std::unique_ptr<wai::PositionEncoding> {
                                          return std::make_unique<YourAlibi>();
                                      });
}
