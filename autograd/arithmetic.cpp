// The arithmetic ops: add, subtract, multiply (with a trailing-shape broadcast), scale, sum, mean.
// Leaves out division and powers: nothing in the model needs them.
#include "autograd/ops.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

// An operand's share of g, times sign: g itself when the operand has g's shape, and otherwise g
// summed over the leading dimensions the operand was repeated on (a bias (D) over (B, T, D)).
static Tensor broadcast_share(const Tensor& g, const Shape& operand, float sign) {
    if (operand == g.shape()) return sign == 1.0f ? g : wai::scale(g, sign);
    Tensor share(operand);
    sum_leading_into(share, g, sign);
    return share;
}

namespace {  // each op type is private to its file

struct AddSigned final : Op {
    float sign;  // +1 for add, -1 for subtract
    explicit AddSigned(float s) : sign(s) {}
    // y = a + sign * b
    static Value forward(const Value& a, const Value& b, float sign) {
        Tensor y = sign > 0 ? wai::add(a.value(), b.value()) : wai::subtract(a.value(), b.value());
        return record(sign > 0 ? "add" : "subtract", std::move(y), {a, b}, std::make_unique<AddSigned>(sign));
    }
    // da += g;  db += sign * g, summed over the broadcast dimensions
    void backward(Node& out) override {
        Value& a = out.parents[0];
        Value& b = out.parents[1];
        if (a.requires_grad()) a.accumulate_grad(broadcast_share(out.grad, a.shape(), 1.0f));
        if (b.requires_grad()) b.accumulate_grad(broadcast_share(out.grad, b.shape(), sign));
    }
};

struct Multiply final : Op {
    // y = a * b, element by element
    static Value forward(const Value& a, const Value& b) {
        return record("multiply", wai::multiply(a.value(), b.value()), {a, b}, std::make_unique<Multiply>());
    }
    // da += g * b (b repeated);  db += g * a, summed over the broadcast dimensions
    void backward(Node& out) override {
        Value& a = out.parents[0];
        Value& b = out.parents[1];
        if (a.requires_grad()) a.accumulate_grad(wai::multiply(out.grad, b.value()));
        if (b.requires_grad()) b.accumulate_grad(broadcast_share(wai::multiply(out.grad, a.value()), b.shape(), 1.0f));
    }
};

struct Scale final : Op {
    float factor;
    explicit Scale(float f) : factor(f) {}
    // y = factor * a
    static Value forward(const Value& a, float factor) {
        return record("scale", wai::scale(a.value(), factor), {a}, std::make_unique<Scale>(factor));
    }
    // da += factor * g
    void backward(Node& out) override {
        Value& a = out.parents[0];
        if (a.requires_grad()) a.accumulate_grad(wai::scale(out.grad, factor));
    }
};

struct Sum final : Op {
    float factor;  // 1 for sum, 1/n for mean
    explicit Sum(float f) : factor(f) {}
    // y = factor * (sum of every element), accumulated in double
    static Value forward(const Value& a, float factor, const char* name) {
        const float total = static_cast<float>(factor * sum_all(a.value()));
        return record(name, Tensor::scalar(total), {a}, std::make_unique<Sum>(factor));
    }
    // da += factor * g, the same for every element
    void backward(Node& out) override {
        Value& a = out.parents[0];
        if (a.requires_grad()) a.accumulate_grad(Tensor::full(a.shape(), factor * out.grad.item()));
    }
};

}  // namespace

Value add(const Value& a, const Value& b) { return AddSigned::forward(a, b, 1.0f); }
Value subtract(const Value& a, const Value& b) { return AddSigned::forward(a, b, -1.0f); }
Value multiply(const Value& a, const Value& b) { return Multiply::forward(a, b); }
Value scale(const Value& a, float factor) { return Scale::forward(a, factor); }
Value sum(const Value& a) { return Sum::forward(a, 1.0f, "sum"); }
Value mean(const Value& a) {
    if (a.value().numel() == 0) shape_error("mean", a.shape().str(), "the mean of no elements is undefined");
    return Sum::forward(a, 1.0f / static_cast<float>(a.value().numel()), "mean");
}

}  // namespace wai
