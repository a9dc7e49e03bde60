// The sinusoid table exercise in the chapter's model: your table (T, D) added to the token
// embeddings (B, T, D) before the first block, in place of the library's SinusoidPositions. The
// table is a constant, so nothing of yours takes part in the backward.
// Leaves out scaling the table or the embeddings: neither the library nor the chapter does.
#include "autograd/ops.hpp"
#include "lessons/exercises/sinusoid_table.hpp"
#include "lessons/exercises/train/train.hpp"

namespace {

struct YourSinusoids : wai::PositionEncoding {
    int64_t dim = 0;
    wai::Value add_to_embeddings(const wai::Value& h) const override {  // (B, T, D) + (T, D)
        const int64_t T = h.shape()[1];
        const wai::Tensor table = sinusoid_table(T, dim);
        exercise::require_shape("sinusoid_table", table, wai::Shape{T, dim});
        return wai::add(h, wai::Value(table));
    }
};

std::unique_ptr<wai::PositionEncoding> yours(int64_t dim, int64_t, wai::Generator&) {
    auto sinusoids = std::make_unique<YourSinusoids>();
    sinusoids->dim = dim;
    return sinusoids;
}

}  // namespace

int main(int argc, char** argv) { return exercise::train_with_yours(argc, argv, "sinusoid_table", "sinusoid", yours); }
