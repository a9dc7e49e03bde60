// Exercise: the order backward visits the graph in (lesson 00, the engine under every lesson).
// The chapter leaves this to PyTorch: its train_position.py calls loss.backward() (Where Am I?, "A
// test: two tasks, four times the length"). Backward runs each op's backward once, from the loss
// back to the parameters; an op may only run once every use of its output has handed back its
// share. That is the reverse of a topological order: parents before children, read from the end.
// Write your code in the one marked place below, then `make exercise EXERCISE=topological_order`
// (or `make exercises` for the board). Once your order is right, the checker trains one step of
// the chapter's model with backward walking your list (wai::backward_in_order).
// What you have (autograd/value.hpp): a wai::Node has `parents`, a std::vector<wai::Value> of the
// op's inputs (a value used twice is there twice); parent.node() is that parent's Node*, and
// node->requires_grad says whether a gradient flows to it (leaves that are inputs say false, and
// backward must never visit them). std::unordered_set<wai::Node*> remembers where you have been.
// Leaves out the answer: wai::topological_order (autograd/value.cpp), if you are stuck.
#include <unordered_set>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

// ==== YOUR CODE: from here to the end marker ===================================================

// Depth first from root: visit a node's parents that require a gradient (each node once), and put
// the node in the list only after all of them are in it. A helper function of your own, recursive
// or with a stack of your own, is fine.
std::vector<Node*> my_topological_order(Node* root) {
    exercise::not_written_yet(root);  // delete this line, and build the order
}

// ==== END OF YOUR CODE ==========================================================================
