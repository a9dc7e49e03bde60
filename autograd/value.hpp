// Value: the handle autograd works with, a shared pointer to a Node in the computation graph.
// Copying a Value is shallow and cheap: both copies name the same node, value and gradient.
// A node remembers the op that made it and that op's inputs (its parents), never its children,
// so the graph has no cycles and is freed when the last handle to its output goes away.
// Leaves out higher-order gradients (backward builds no graph) and hooks.
#pragma once
#include <memory>
#include <vector>

#include "tensor/tensor.hpp"

namespace wai {

struct Node;
struct Op;

class Value {
public:
    Value() = default;  // empty handle; most uses need a real one
    // A leaf: an input (requires_grad false) or a parameter (requires_grad true).
    explicit Value(Tensor value, bool requires_grad = false);

    bool defined() const { return node_ != nullptr; }
    const Tensor& value() const;
    Tensor& value();  // for optimizers and initialisers; never change a value a graph still needs
    const Shape& shape() const { return value().shape(); }
    bool requires_grad() const;
    bool is_leaf() const;         // made by the user, not by an op
    const char* op_name() const;  // "leaf", "matmul", ...

    // The gradient of the last backward's root with respect to this value. Leaves keep and
    // accumulate it; interior nodes have one only while backward runs, unless their node's
    // retain_grad is set (Node, below).
    bool has_grad() const;
    const Tensor& grad() const;
    void zero_grad();  // gradient set to zeros (kept allocated)

    // How an op's backward hands a parent its share of the gradient. Two calls, and when each is right:
    //   accumulate_grad(share)  the default, for every share an op computes as a tensor of its own:
    //                           grad += share; the first share to arrive becomes the gradient as it
    //                           is (moved in when passed as a temporary or with std::move, else copied).
    //   grad_buffer()           only for a share that a kernel adds straight into its destination (a
    //                           gemm with beta = 1, a scatter-add such as embedding's or split's): the
    //                           gradient itself, created as zeros first when none has arrived.
    // An optimizer or a test may also set a gradient through grad_buffer().
    void accumulate_grad(Tensor share);
    Tensor& grad_buffer();

    // Reverse-mode differentiation from this value. The one-argument form seeds d(root) = seed;
    // the plain form needs a one-element root and seeds 1. Leaf gradients add up over calls.
    void backward();
    void backward(const Tensor& seed);

    Node* node() const { return node_.get(); }
    long use_count() const { return node_.use_count(); }  // handles sharing this node

private:
    std::shared_ptr<Node> node_;
    friend Value record(const char*, Tensor, std::vector<Value>, std::unique_ptr<Op>);
    friend void backward_in_order(Value&, const Tensor&, const std::vector<Node*>&);
};

// The backward half of a differentiable op. Each op is a struct deriving from Op that holds its
// forward (a static function that computes the value and calls record) and its backward side by
// side, and saves only what its backward needs.
struct Op {
    virtual ~Op() = default;
    // Reads out.grad, the gradient of the root with respect to out.value, and hands each parent that
    // requires a gradient its share through Value::accumulate_grad or Value::grad_buffer (above).
    // A plain op leaves out.grad as it is and writes every share fresh.
    virtual void backward(Node& out) = 0;
};

struct Node {
    Tensor value;
    Tensor grad;  // undefined until a gradient arrives
    bool requires_grad = false;
    // Backward frees an interior node's gradient once its op has passed it on. Set, the node keeps it
    // until the next backward computes it afresh (as PyTorch's retain_grad() keeps a tensor's): lesson
    // 00 draws its graph with every node's gradient this way.
    bool retain_grad = false;
    const char* op_name = "leaf";
    std::vector<Value> parents;  // the op's inputs, in the op's order
    std::unique_ptr<Op> op;      // null for leaves

    ~Node();  // unlinks long chains of parents without recursion
};

// The one buffer-reuse helper, for fast ops only (fast/): hands over the
// memory of out.grad to an op whose share for one parent has the output's shape and is written over
// the incoming gradient element by element as it is read (saving a new tensor of that size and a
// pass over memory). out.grad is undefined afterwards: the op works on what this returns instead
// (for a node that retains its gradient, a copy: out.grad stays as it was).
Tensor take_incoming_grad(Node& out);

// Makes the output node of an op. When gradients are off (NoGradScope) or no parent requires one,
// the result is a plain leaf and nothing is recorded.
Value record(const char* op_name, Tensor value, std::vector<Value> parents, std::unique_ptr<Op> op);

// Inside a NoGradScope no graph is recorded: evaluation uses it to run the model cheaply.
bool grad_enabled();
class NoGradScope {
public:
    NoGradScope();
    ~NoGradScope();
    NoGradScope(const NoGradScope&) = delete;
    NoGradScope& operator=(const NoGradScope&) = delete;
};

// Every node reachable from root through parents that require a gradient, parents before children.
std::vector<Node*> topological_order(Node* root);
// root.backward(seed) over the order given instead of topological_order(root)'s, which it must equal
// as a set, parents before children (the topological-order exercise trains with its own order).
void backward_in_order(Value& root, const Tensor& seed, const std::vector<Node*>& order);

}  // namespace wai
