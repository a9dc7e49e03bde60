// A right answer that starts a process which forks and ends, over and over, so that a different
// process is always running (no scan of /proc at one moment is sure to see it): it is stopped all the
// same when the program ends, and a line says processes were left.
// seconds: 60
// expect: 0 | ^topological_order: solved$ | your code left [0-9]+ process\(es\) running after the program ended
#include <unistd.h>

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
    static bool started = false;
    if (!started) {
        started = true;
        if (fork() == 0)
            for (;;)
                if (fork() != 0) _exit(0);  // the parent ends, its child goes on
    }
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    if (root->requires_grad) visit(root, visited, order);
    return order;
}
