// Ops that move numbers without arithmetic: reshape, and transpose of two axes (splitting heads).
// Each copies into a new contiguous tensor (whereami has no views), and its backward copies back.
// Leaves out general permutations, concatenation and split_last (autograd/split_last.cpp).
#include <stdexcept>

#include "autograd/ops.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

namespace {  // each op type is private to its file

struct Reshape final : Op {
    // y = the same numbers under a new shape
    static Value forward(const Value& a, const Shape& shape) {
        return record("reshape", a.value().reshaped(shape), {a}, std::make_unique<Reshape>());
    }
    // da += g under a's shape
    void backward(Node& out) override {
        Value& a = out.parents[0];
        if (a.requires_grad()) a.accumulate_grad(out.grad.reshaped(a.shape()));
    }
};

}  // namespace

// Copies `from` into a new tensor with axes axis0 and axis1 swapped. Shapes are padded to rank 4
// at the front so one four-deep loop serves every rank.
static Tensor swap_axes(const Tensor& from, int axis0, int axis1) {
    const int rank = from.rank(), pad = Shape::max_rank - rank;
    int64_t size[4] = {1, 1, 1, 1};
    for (int i = 0; i < rank; ++i) size[pad + i] = from.size(i);
    int64_t stride[4];  // the source's row-major strides
    stride[3] = 1;
    for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * size[i + 1];
    std::swap(size[pad + axis0], size[pad + axis1]);
    std::swap(stride[pad + axis0], stride[pad + axis1]);

    Shape out_shape;
    for (int i = 0; i < rank; ++i) out_shape = out_shape.append(size[pad + i]);
    Tensor out = Tensor::uninitialized(out_shape);
    float* dst = out.data();
    const float* src = from.data();
    for (int64_t i0 = 0; i0 < size[0]; ++i0)
        for (int64_t i1 = 0; i1 < size[1]; ++i1)
            for (int64_t i2 = 0; i2 < size[2]; ++i2)
                for (int64_t i3 = 0; i3 < size[3]; ++i3)
                    *dst++ = src[i0 * stride[0] + i1 * stride[1] + i2 * stride[2] + i3 * stride[3]];
    return out;
}

namespace {  // each op type is private to its file

struct Transpose final : Op {
    int axis0, axis1;
    Transpose(int a0, int a1) : axis0(a0), axis1(a1) {}
    // y = a with two axes swapped
    static Value forward(const Value& a, int axis0, int axis1) {
        const int rank = a.value().rank();
        if (axis0 < 0 || axis1 < 0 || axis0 >= rank || axis1 >= rank)
            shape_error("transpose", a.shape().str(),
                        "axes " + std::to_string(axis0) + " and " + std::to_string(axis1) + " must be in 0.." +
                            std::to_string(rank - 1));
        return record("transpose", swap_axes(a.value(), axis0, axis1), {a}, std::make_unique<Transpose>(axis0, axis1));
    }
    // da += g with the same two axes swapped back
    void backward(Node& out) override {
        Value& a = out.parents[0];
        if (a.requires_grad()) a.accumulate_grad(swap_axes(out.grad, axis0, axis1));
    }
};

}  // namespace


Value reshape(const Value& a, const Shape& shape) { return Reshape::forward(a, shape); }
Value transpose(const Value& a, int axis0, int axis1) { return Transpose::forward(a, axis0, axis1); }
Value transpose_last2(const Value& a) {
    const int rank = a.value().rank();
    if (rank < 2) shape_error("transpose_last2", a.shape().str(), "needs rank 2 or more");
    return Transpose::forward(a, rank - 2, rank - 1);
}

}  // namespace wai
