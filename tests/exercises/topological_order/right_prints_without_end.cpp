// A right answer that first prints 64 MiB: the output is passed on up to contain's cap (1 MiB) and
// the rest dropped, with a line saying where it was cut, and the verdict still reaches make.
// expect: 0 | ^topological_order: solved$ | your code printed more than 1048576 bytes; the rest of what the program printed was not shown
#include <cstdio>

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
    static bool printed = false;
    if (!printed) {
        printed = true;
        static char line[1024];
        for (char& c : line) c = 'x';
        line[sizeof line - 1] = '\n';
        for (int i = 0; i < 64 * 1024; ++i) std::fwrite(line, 1, sizeof line, stdout);
    }
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    if (root->requires_grad) visit(root, visited, order);
    return order;
}
