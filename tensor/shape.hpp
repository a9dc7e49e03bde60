// Shape: the sizes of a tensor's dimensions, rank 0 to 4, row-major.
// Leaves out strides and views: every tensor in whereami is contiguous, so a shape is all there is.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace wai {

class Shape {
public:
    static constexpr int max_rank = 4;

    Shape() = default;  // rank 0: a scalar
    Shape(std::initializer_list<int64_t> sizes);

    int rank() const { return rank_; }
    int64_t operator[](int axis) const { return sizes_[axis]; }
    int64_t last() const { return rank_ == 0 ? 1 : sizes_[rank_ - 1]; }
    int64_t numel() const;
    // Product of every size but the last: the number of rows when the tensor is seen as 2-D.
    int64_t rows() const {
        int64_t count = 1;
        for (int axis = 0; axis + 1 < rank_; ++axis) count *= sizes_[axis];
        return count;
    }

    Shape with_last(int64_t size) const;  // same shape, last size replaced
    Shape drop_last() const;              // shape without its last axis
    Shape append(int64_t size) const;     // shape with one more axis at the end
    // The trailing `count` sizes, e.g. (B, T, D).trailing(1) == (D).
    Shape trailing(int count) const;

    bool operator==(const Shape& other) const;
    bool operator!=(const Shape& other) const { return !(*this == other); }
    std::string str() const;  // "(2048, 64)"

private:
    std::array<int64_t, max_rank> sizes_{};
    int rank_ = 0;
};

}  // namespace wai
