// A right answer to the topological-order exercise: a recursive depth-first search with a visited
// set, each node added after its parents.
// expect: 0 | ^topological_order: solved$ | \[ok\] your order of the loss graph | \[ok\] one training step
#include <unordered_set>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

static void visit(Node* node, std::unordered_set<Node*>& visited, std::vector<Node*>& order) {
    if (!visited.insert(node).second) return;
    for (const wai::Value& parent : node->parents)
        if (parent.requires_grad()) visit(parent.node(), visited, order);
    order.push_back(node);
}

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    if (root->requires_grad) visit(root, visited, order);
    return order;
}
