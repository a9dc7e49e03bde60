// Tensor: creation and the checks every op shares.
// Leaves out arithmetic (tensor/elementwise.cpp) and matrix products (tensor/gemm.cpp).
#include "tensor/tensor.hpp"

#include <algorithm>
#include <stdexcept>

namespace wai {

Tensor::Tensor(const Shape& shape) : shape_(shape), data_(static_cast<size_t>(shape.numel()), 0.0f) {}

Tensor::Tensor(const Tensor& other) : shape_(other.shape_) {
    data_.resize(other.data_.size());
    std::copy(other.data_.begin(), other.data_.end(), data_.begin());
}

Tensor& Tensor::operator=(const Tensor& other) {
    if (this == &other) return *this;
    shape_ = other.shape_;
    data_.resize(other.data_.size());
    std::copy(other.data_.begin(), other.data_.end(), data_.begin());
    return *this;
}

Tensor Tensor::uninitialized(const Shape& shape) {
    Tensor t;
    t.shape_ = shape;
    t.data_.resize(static_cast<size_t>(shape.numel()));
    return t;
}

Tensor Tensor::full(const Shape& shape, float value) {
    Tensor t(shape);
    t.fill(value);
    return t;
}

Tensor Tensor::from_values(const Shape& shape, std::vector<float> values) {
    if (static_cast<int64_t>(values.size()) != shape.numel())
        shape_error("from_values", shape.str(),
                    "needs " + std::to_string(shape.numel()) + " values, got " + std::to_string(values.size()));
    Tensor t;
    t.shape_ = shape;
    t.data_.assign(values.begin(), values.end());
    return t;
}

Tensor Tensor::uniform(const Shape& shape, float low, float high, Generator& generator) {
    Tensor t(shape);
    for (float& x : t.data_) x = generator.uniform(low, high);
    return t;
}

Tensor Tensor::normal(const Shape& shape, float mean, float std, Generator& generator) {
    Tensor t(shape);
    for (float& x : t.data_) x = mean + std * generator.normal();
    return t;
}

float Tensor::item() const {
    if (numel() != 1) shape_error("item", shape_.str(), "needs exactly one element");
    return data_[0];
}

Tensor Tensor::reshaped(const Shape& shape) const& {
    Tensor copy = *this;
    return std::move(copy).reshaped(shape);
}

Tensor Tensor::reshaped(const Shape& shape) && {
    if (shape.numel() != shape_.numel())
        shape_error("reshape", shape_.str() + " to " + shape.str(), "element counts differ");
    shape_ = shape;
    return std::move(*this);
}

[[noreturn]] static void index_error(const Shape& shape, const std::string& index, const std::string& why) {
    throw std::out_of_range("tensor index " + index + " is outside a tensor of shape " + shape.str() + ": " + why);
}

size_t Tensor::checked_flat(int64_t i) const {
    if (i < 0 || i >= numel())
        index_error(shape_, "[" + std::to_string(i) + "]", numel() == 0 ? "it has no elements"
                                                          : "a flat index runs from 0 to " + std::to_string(numel() - 1));
    return static_cast<size_t>(i);
}

// The error of checked_offset: "(t, c)" and why, written only here, out of the way of every
// checked access.
[[noreturn]] static void offset_error(const Shape& shape, std::initializer_list<int64_t> index) {
    std::string text = "(";
    for (int64_t i : index) text += (text.size() > 1 ? ", " : "") + std::to_string(i);
    text += ")";
    if (static_cast<int>(index.size()) != shape.rank())
        index_error(shape, text, std::to_string(index.size()) + " indices for " + std::to_string(shape.rank()) + " axes");
    int64_t axis = 0;
    for (int64_t i : index) {
        if (i < 0 || i >= shape[axis])
            index_error(shape, text, "index " + std::to_string(i) + " on axis " + std::to_string(axis) + " runs from 0 to " +
                                         std::to_string(shape[axis] - 1));
        ++axis;
    }
    index_error(shape, text, "no index is out of range");  // not reached: checked_offset found one
}

size_t Tensor::checked_offset(std::initializer_list<int64_t> index) const {
    if (static_cast<int>(index.size()) != shape_.rank()) offset_error(shape_, index);
    int64_t offset = 0, axis = 0;
    for (int64_t i : index) {
        if (i < 0 || i >= shape_[axis]) offset_error(shape_, index);
        offset = offset * shape_[axis] + i;
        ++axis;
    }
    return static_cast<size_t>(offset);
}

void Tensor::fill(float value) { std::fill(data_.begin(), data_.end(), value); }

void shape_error(const char* op, const std::string& shapes, const std::string& why) {
    throw std::invalid_argument(std::string(op) + ": " + shapes + ": " + why);
}

void check_same_shape(const char* op, const Shape& a, const Shape& b) {
    if (a != b) shape_error(op, a.str() + " and " + b.str(), "shapes differ");
}

}  // namespace wai
