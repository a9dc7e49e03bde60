// Shape: construction with checks, and the few derived shapes the ops need.
// Leaves out broadcasting rules: each op states the shapes it accepts.
#include "tensor/shape.hpp"

#include <stdexcept>

namespace wai {

Shape::Shape(std::initializer_list<int64_t> sizes) {
    if (sizes.size() > max_rank)
        throw std::invalid_argument("Shape: rank " + std::to_string(sizes.size()) + " is more than 4");
    for (int64_t size : sizes) {
        if (size < 0) throw std::invalid_argument("Shape: negative size " + std::to_string(size));
        sizes_[rank_++] = size;
    }
}

int64_t Shape::numel() const {
    int64_t count = 1;
    for (int i = 0; i < rank_; ++i) count *= sizes_[i];
    return count;
}

Shape Shape::with_last(int64_t size) const {
    if (rank_ == 0) throw std::invalid_argument("Shape::with_last: a scalar has no last axis");
    Shape s = *this;
    s.sizes_[rank_ - 1] = size;
    return s;
}

Shape Shape::drop_last() const {
    if (rank_ == 0) throw std::invalid_argument("Shape::drop_last: a scalar has no last axis");
    Shape s = *this;
    s.sizes_[--s.rank_] = 0;
    return s;
}

Shape Shape::append(int64_t size) const {
    if (rank_ == max_rank) throw std::invalid_argument("Shape::append: " + str() + " already has rank 4");
    Shape s = *this;
    s.sizes_[s.rank_++] = size;
    return s;
}

Shape Shape::trailing(int count) const {
    if (count < 0 || count > rank_)
        throw std::invalid_argument("Shape::trailing: " + str() + " has no " + std::to_string(count) + " trailing axes");
    Shape s;
    for (int i = rank_ - count; i < rank_; ++i) s.sizes_[s.rank_++] = sizes_[i];
    return s;
}

bool Shape::operator==(const Shape& other) const {
    if (rank_ != other.rank_) return false;
    for (int i = 0; i < rank_; ++i)
        if (sizes_[i] != other.sizes_[i]) return false;
    return true;
}

std::string Shape::str() const {
    std::string s = "(";
    for (int i = 0; i < rank_; ++i) {
        if (i) s += ", ";
        s += std::to_string(sizes_[i]);
    }
    return s + ")";
}

}  // namespace wai
