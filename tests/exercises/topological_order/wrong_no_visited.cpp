// A wrong answer: the depth-first search keeps no visited set, so a node reached along two paths
// (through the value the diamond uses twice) is listed twice.
// expect: 1 | ^topological_order: wrong answer: your order of a diamond.*'leaf' node \(2, 3\) at position 3 of your list is already at position 0 | hint: it is reached along two paths | \[ok\] your order of a chain
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

static void visit(Node* node, std::vector<Node*>& order) {
    for (const wai::Value& parent : node->parents)
        if (parent.requires_grad()) visit(parent.node(), order);
    order.push_back(node);
}

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    if (root->requires_grad) visit(root, order);
    return order;
}
