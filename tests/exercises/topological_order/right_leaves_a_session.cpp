// A right answer that starts a process which leaves the run's process group and session (setsid)
// and sleeps for ten minutes holding the output open: it is still found and stopped when the
// program ends (contain is the subreaper of everything the program starts), and a line says so.
// seconds: 60
// expect: 0 | ^topological_order: solved$ | your code left 1 process\(es\) running after the program ended
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
    static bool forked = false;
    if (!forked) {
        forked = true;
        if (fork() == 0) {
            setsid();
            execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
            _exit(127);
        }
    }
    std::vector<Node*> order;
    std::unordered_set<Node*> visited;
    if (root->requires_grad) visit(root, visited, order);
    return order;
}
