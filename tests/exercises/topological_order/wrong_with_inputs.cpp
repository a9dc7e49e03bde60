// A wrong answer: every parent is visited, also the inputs that need no gradient.
// expect: 1 | ^topological_order: wrong answer: your order of a layer with inputs.*'leaf' node \(4, 3\), which does not require a gradient | hint: an input that needs no gradient is listed
#include <unordered_set>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

static void visit(Node* node, std::unordered_set<Node*>& visited, std::vector<Node*>& order) {
    if (!visited.insert(node).second) return;
    for (const wai::Value& parent : node->parents) visit(parent.node(), visited, order);
    order.push_back(node);
}

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    visit(root, visited, order);
    return order;
}
