// The arithmetic ops: add, subtract, multiply (with a trailing-shape broadcast), scale, sum, mean.
// Leaves out division and powers: nothing in the model needs them.
#include "autograd/ops.hpp"
#include "tensor/kernels.hpp"

namespace wai {

// Adds the gradient of a broadcast operand: summed over the leading dimensions it was repeated on.
// With `last_use`, grad is not needed afterwards and may be moved into the operand.
static void accumulate_broadcast(Value& operand, Tensor& grad, float sign, bool last_use) {
    if (!operand.requires_grad()) return;
    if (operand.shape() != grad.shape()) sum_leading_into(operand.grad_buffer(), grad, sign);
    else if (sign != 1.0f) operand.accumulate_grad(wai::scale(grad, sign));
    else if (last_use) operand.accumulate_grad(std::move(grad));
    else operand.accumulate_grad(grad);
}

namespace {  // each op type is private to its file

struct Add final : Op {
    // y = a + b
    static Value forward(const Value& a, const Value& b) {
        return record("add", wai::add(a.value(), b.value()), {a, b}, std::make_unique<Add>());
    }
    // da += g; db += g summed over the broadcast dimensions
    void apply(Node& out) override {
        accumulate_broadcast(out.parents[1], out.grad, 1.0f, false);
        accumulate_broadcast(out.parents[0], out.grad, 1.0f, true);
    }
};

}  // namespace

namespace {  // each op type is private to its file

struct Subtract final : Op {
    // y = a - b
    static Value forward(const Value& a, const Value& b) {
        return record("subtract", wai::subtract(a.value(), b.value()), {a, b}, std::make_unique<Subtract>());
    }
    // da += g; db -= g summed over the broadcast dimensions
    void apply(Node& out) override {
        accumulate_broadcast(out.parents[1], out.grad, -1.0f, false);
        accumulate_broadcast(out.parents[0], out.grad, 1.0f, true);
    }
};

}  // namespace

namespace {  // each op type is private to its file

struct Multiply final : Op {
    // y = a * b, element by element
    static Value forward(const Value& a, const Value& b) {
        return record("multiply", wai::multiply(a.value(), b.value()), {a, b}, std::make_unique<Multiply>());
    }
    // da += g * b (b repeated); db += sum over the broadcast dimensions of g * a
    void apply(Node& out) override {
        Value& a = out.parents[0];
        Value& b = out.parents[1];
        if (a.requires_grad()) a.accumulate_grad(wai::multiply(out.grad, b.value()));
        if (b.requires_grad()) {
            Tensor g_times_a = out.grad;
            multiply_inplace(g_times_a, a.value());
            accumulate_broadcast(b, g_times_a, 1.0f, true);
        }
    }
};

}  // namespace

namespace {  // each op type is private to its file

struct Scale final : Op {
    float factor;
    explicit Scale(float f) : factor(f) {}
    // y = factor * a
    static Value forward(const Value& a, float factor) {
        return record("scale", wai::scale(a.value(), factor), {a}, std::make_unique<Scale>(factor));
    }
    // da += factor * g
    void apply(Node& out) override {
        Value& a = out.parents[0];
        if (a.requires_grad()) a.accumulate_grad(wai::scale(out.grad, factor));
    }
};

}  // namespace

namespace {  // each op type is private to its file

struct Sum final : Op {
    float factor;  // 1 for sum, 1/n for mean
    explicit Sum(float f) : factor(f) {}
    // y = factor * (sum of every element), accumulated in double
    static Value forward(const Value& a, float factor, const char* name) {
        const float total = static_cast<float>(factor * sum_all(a.value()));
        return record(name, Tensor::scalar(total), {a}, std::make_unique<Sum>(factor));
    }
    // da += factor * g, the same for every element
    void apply(Node& out) override {
        Value& a = out.parents[0];
        if (!a.requires_grad()) return;
        const float g = factor * out.grad.item();
        Tensor& da = a.grad_buffer();
        for (int64_t i = 0; i < da.numel(); ++i) da[i] += g;
    }
};

}  // namespace

Value add(const Value& a, const Value& b) { return Add::forward(a, b); }
Value subtract(const Value& a, const Value& b) { return Subtract::forward(a, b); }
Value multiply(const Value& a, const Value& b) { return Multiply::forward(a, b); }
Value scale(const Value& a, float factor) { return Scale::forward(a, factor); }
Value sum(const Value& a) { return Sum::forward(a, 1.0f, "sum"); }
Value mean(const Value& a) {
    if (a.value().numel() == 0) shape_error("mean", a.shape().str(), "the mean of no elements is undefined");
    return Sum::forward(a, 1.0f / static_cast<float>(a.value().numel()), "mean");
}

}  // namespace wai
