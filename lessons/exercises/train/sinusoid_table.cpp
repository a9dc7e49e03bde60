// The sinusoid table exercise in the chapter's model: your table (T, D) added to the token
// embeddings (B, T, D) before the first block, in place of the library's SinusoidPositions. The
// table is a constant, so nothing of yours takes part in the backward.
// Leaves out scaling the table or the embeddings: neither the library nor the chapter does.
#include <stdexcept>

#include "autograd/ops.hpp"
#include "lessons/exercises/sinusoid_table.hpp"
#include "lessons/exercises/train/train.hpp"

namespace {

class YourSinusoids : public wai::PositionEncoding {
public:
    explicit YourSinusoids(int64_t dim) : dim_(dim) {}
    wai::Value add_to_embeddings(const wai::Value& h) const override {  // (B, T, D) + (T, D)
        const int64_t T = h.shape()[1];
        const wai::Tensor table = sinusoid_table(T, dim_);
        if (table.shape() != wai::Shape{T, dim_})
            throw std::invalid_argument("sinusoid_table returned shape " + table.shape().str() + " for (T, D) = " +
                                        wai::Shape{T, dim_}.str());
        return wai::add(h, wai::Value(table));
    }
    std::string spec() const override { return "sinusoid"; }

private:
    int64_t dim_;
};

}  // namespace

int main(int argc, char** argv) {
    return exercise::train_with_yours(argc, argv, "sinusoid_table", "sinusoid",
                                      [](int64_t dim, int64_t, wai::Generator&) -> std::unique_ptr<wai::PositionEncoding> {
                                          return std::make_unique<YourSinusoids>(dim);
                                      });
}
