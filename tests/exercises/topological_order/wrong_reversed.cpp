// A wrong answer: each node added before its parents (pre-order), so the list runs from the root
// to the leaves, children before parents.
// expect: 1 | ^topological_order: wrong answer: your order of a chain.*'sum' node \(\) at position 0 of your list comes before its parent | hint: your list is children before parents, the reverse order
#include <unordered_set>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

static void visit(Node* node, std::unordered_set<Node*>& visited, std::vector<Node*>& order) {
    if (!visited.insert(node).second) return;
    order.push_back(node);
    for (const wai::Value& parent : node->parents)
        if (parent.requires_grad()) visit(parent.node(), visited, order);
}

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    if (root->requires_grad) visit(root, visited, order);
    return order;
}
