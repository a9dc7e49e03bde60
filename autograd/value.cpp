// The graph machinery: recording an op's output, the topological order, and backward itself.
// Leaves out the ops (one file each in autograd/) and any freeing of the graph during backward:
// the graph lives as long as a handle to its output does, so backward can run twice.
#include "autograd/value.hpp"

#include "tensor/elementwise.hpp"

#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace wai {

namespace {
thread_local int no_grad_depth = 0;
}

bool grad_enabled() { return no_grad_depth == 0; }
NoGradScope::NoGradScope() { ++no_grad_depth; }
NoGradScope::~NoGradScope() { --no_grad_depth; }

Value::Value(Tensor value, bool requires_grad) : node_(std::make_shared<Node>()) {
    node_->value = std::move(value);
    node_->requires_grad = requires_grad;
}

static Node& checked(const std::shared_ptr<Node>& node) {
    if (!node) throw std::logic_error("Value: this handle is empty");
    return *node;
}

const Tensor& Value::value() const { return checked(node_).value; }
Tensor& Value::value() { return checked(node_).value; }
bool Value::requires_grad() const { return checked(node_).requires_grad; }
bool Value::is_leaf() const { return checked(node_).op == nullptr; }
const char* Value::op_name() const { return checked(node_).op_name; }
bool Value::has_grad() const { return checked(node_).grad.defined(); }

const Tensor& Value::grad() const {
    const Node& node = checked(node_);
    if (!node.grad.defined()) throw std::logic_error(std::string("grad: this ") + node.op_name + " value has no gradient");
    return node.grad;
}

Tensor& Value::grad_buffer() {
    Node& node = checked(node_);
    if (!node.grad.defined()) node.grad = Tensor(node.value.shape());
    return node.grad;
}

void Value::zero_grad() { grad_buffer().fill(0.0f); }

void Value::accumulate_grad(Tensor share) {
    Node& node = checked(node_);
    check_same_shape("accumulate_grad", node.value.shape(), share.shape());
    if (node.grad.defined()) add_scaled_inplace(node.grad, share);
    else node.grad = std::move(share);
}

Tensor take_incoming_grad(Node& out) {
    if (!out.grad.defined()) throw std::logic_error(std::string("take_incoming_grad: this ") + out.op_name + " has no incoming gradient");
    if (out.retain_grad) return out.grad;  // a copy: the node keeps its own
    Tensor grad = std::move(out.grad);
    out.grad = Tensor();
    return grad;
}

Value record(const char* op_name, Tensor value, std::vector<Value> parents, std::unique_ptr<Op> op) {
    bool needs_grad = false;
    for (const Value& p : parents) needs_grad = needs_grad || p.requires_grad();
    Value out(std::move(value), false);
    if (!grad_enabled() || !needs_grad) return out;
    Node& node = *out.node_;
    node.requires_grad = true;
    node.op_name = op_name;
    node.parents = std::move(parents);
    node.op = std::move(op);
    return out;
}

std::vector<Node*> topological_order(Node* root) {
    // Depth-first search with an explicit stack: a node is emitted once all its parents are.
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    std::vector<std::pair<Node*, size_t>> stack;  // node, index of the next parent to visit
    if (!root->requires_grad) return order;
    stack.emplace_back(root, 0);
    visited.insert(root);
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < node->parents.size()) {
            Node* parent = node->parents[next++].node();
            if (parent->requires_grad && visited.insert(parent).second) stack.emplace_back(parent, 0);
        } else {
            order.push_back(node);
            stack.pop_back();
        }
    }
    return order;
}

void Value::backward() {
    if (value().numel() != 1)
        shape_error("backward", value().shape().str(), "needs a one-element root; pass a seed gradient instead");
    backward(Tensor::full(value().shape(), 1.0f));
}

void Value::backward(const Tensor& seed) {
    if (!requires_grad()) throw std::logic_error("backward: the root does not require a gradient (no parameter reaches it)");
    backward_in_order(*this, seed, topological_order(node()));
}

void backward_in_order(Value& root_value, const Tensor& seed, const std::vector<Node*>& order) {
    Node& root = checked(root_value.node_);
    check_same_shape("backward", root.value.shape(), seed.shape());
    if (!root.requires_grad) throw std::logic_error("backward: the root does not require a gradient (no parameter reaches it)");

    // Interior gradients are computed afresh on every call, so only leaves accumulate across calls.
    for (Node* node : order)
        if (node->op) node->grad = Tensor();
    if (root.op) root.grad = seed;
    else root_value.accumulate_grad(seed);

    // An interior gradient is spent once its op has passed it on: released there and then, so the
    // next gradient of that size reuses memory that is still in cache (and the peak stays lower),
    // unless the node retains it.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Node* node = *it;
        if (!node->op) continue;
        if (node->grad.defined()) node->op->backward(*node);
        if (!node->retain_grad) node->grad = Tensor();
    }
}

Node::~Node() {
    // Destroying a node destroys the parents only it held, which destroy theirs, and so on: a long
    // chain would recurse that deep. Move such parents into a local list and let them go one by one.
    std::vector<Value> pending = std::move(parents);
    while (!pending.empty()) {
        Value v = std::move(pending.back());
        pending.pop_back();
        if (v.node() && v.node()->parents.size() && v.use_count() == 1) {
            for (Value& p : v.node()->parents) pending.push_back(std::move(p));
            v.node()->parents.clear();
        }
    }
}

}  // namespace wai
