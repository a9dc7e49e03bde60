// Tensor: float32 numbers in one contiguous row-major buffer, with a Shape.
// A Tensor is a value: copying it copies the numbers (use std::move to hand one over cheaply).
// Leaves out views, strides, other dtypes and devices; the autograd handle lives in autograd/.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tensor/random.hpp"
#include "tensor/shape.hpp"
#include "tensor/uninitialized_allocator.hpp"

namespace wai {

class Tensor {
public:
    Tensor() = default;  // undefined: no shape, no numbers (see defined())
    explicit Tensor(const Shape& shape);  // zeros
    // A copy is one block copy of the numbers (the allocator's element-wise construct would be slower).
    Tensor(const Tensor& other);
    Tensor& operator=(const Tensor& other);
    Tensor(Tensor&&) noexcept = default;
    Tensor& operator=(Tensor&&) noexcept = default;

    static Tensor zeros(const Shape& shape) { return Tensor(shape); }
    // Numbers left unset: only for results every element of which is written next.
    static Tensor uninitialized(const Shape& shape);
    static Tensor full(const Shape& shape, float value);
    static Tensor from_values(const Shape& shape, std::vector<float> values);
    static Tensor scalar(float value) { return from_values(Shape{}, {value}); }
    // U(low, high) and N(mean, std), element by element in row-major order from `generator`.
    static Tensor uniform(const Shape& shape, float low, float high, Generator& generator);
    static Tensor normal(const Shape& shape, float mean, float std, Generator& generator);

    bool defined() const { return !data_.empty() || (shape_.numel() == 0 && shape_.rank() > 0); }
    const Shape& shape() const { return shape_; }
    int rank() const { return shape_.rank(); }
    int64_t numel() const { return static_cast<int64_t>(data_.size()); }
    int64_t size(int axis) const { return shape_[axis]; }

    float* data() { return data_.data(); }
    const float* data() const { return data_.data(); }
    // Element i in row-major order. Built with WAI_CHECKED_INDEXING (the lessons and exercises are),
    // an i outside 0..numel()-1 throws std::out_of_range naming the shape and the index.
#ifdef WAI_CHECKED_INDEXING
    float& operator[](int64_t i) { return data_[checked_flat(i)]; }
    float operator[](int64_t i) const { return data_[checked_flat(i)]; }
#else
    float& operator[](int64_t i) { return data_[i]; }
    float operator[](int64_t i) const { return data_[i]; }
#endif
    // Element (i, j, ...) by one index per axis, t(row, column) for a matrix; always checked: an
    // index outside its axis throws std::out_of_range naming the shape and the index.
    template <typename... Index>
    float& operator()(Index... index) { return data_[checked_offset({static_cast<int64_t>(index)...})]; }
    template <typename... Index>
    float operator()(Index... index) const { return data_[checked_offset({static_cast<int64_t>(index)...})]; }
    float item() const;  // the one number of a one-element tensor

    // The same numbers under a new shape with the same element count.
    Tensor reshaped(const Shape& shape) const&;
    Tensor reshaped(const Shape& shape) &&;

    void fill(float value);

private:
    size_t checked_flat(int64_t i) const;
    size_t checked_offset(std::initializer_list<int64_t> index) const;
    Shape shape_;
    std::vector<float, UninitializedAllocator<float>> data_;  // new numbers unset until written
};

// Throws std::invalid_argument "<op>: <a> and <b>: <why>" unless the shapes are equal.
void check_same_shape(const char* op, const Shape& a, const Shape& b);
// Throws "<op>: <shape>: <why>"; the one way shape errors are worded everywhere.
[[noreturn]] void shape_error(const char* op, const std::string& shapes, const std::string& why);

}  // namespace wai
