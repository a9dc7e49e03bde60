// The split of the last axis into equal parts: the attention's q, k and v from one (B, T, 3D).
// Each part is copied into a new contiguous tensor (whereami has no views), and its backward copies
// the gradient back into its columns. Leaves out unequal parts and concatenation.
#include "autograd/ops.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct SplitLast final : Op {
    int64_t offset;  // where this part starts within a's last axis
    explicit SplitLast(int64_t o) : offset(o) {}

    // Copies columns [offset, offset + part) of every row of `from` (rows of `width`).
    static Tensor slice(const Tensor& from, int64_t offset, int64_t part) {
        Tensor out = Tensor::uninitialized(from.shape().with_last(part));
        const int64_t width = from.shape().last(), rows = from.shape().rows();
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < part; ++c) out[r * part + c] = from[r * width + offset + c];
        return out;
    }
    // parts[k] = columns [k*C, (k+1)*C) of the last axis
    static std::vector<Value> forward(const Value& a, int parts) {
        const int64_t width = a.shape().rank() ? a.shape().last() : 0;
        if (parts <= 0 || width % parts != 0)
            shape_error("split_last", a.shape().str(), "last dimension " + std::to_string(width) +
                                                           " does not split into " + std::to_string(parts) + " equal parts");
        const int64_t part = width / parts;
        std::vector<Value> out;
        for (int k = 0; k < parts; ++k)
            out.push_back(record("split_last", slice(a.value(), k * part, part), {a},
                                 std::make_unique<SplitLast>(k * part)));
        return out;
    }
    // da[..., offset + c] += g[..., c]
    void backward(Node& out) override {
        Value& a = out.parents[0];
        if (!a.requires_grad()) return;
        Tensor& da = a.grad_buffer();
        const int64_t width = da.shape().last(), part = out.grad.shape().last(), rows = da.shape().rows();
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < part; ++c) da[r * width + offset + c] += out.grad[r * part + c];
    }
};

}  // namespace

std::vector<Value> split_last(const Value& a, int parts) { return SplitLast::forward(a, parts); }

}  // namespace wai
