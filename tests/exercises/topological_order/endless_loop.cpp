// A wrong answer that never ends and allocates nothing: a walk up the first parents whose step is
// forgotten. make exercise stops it at its time limit and says so.
// seconds: 3
// expect: 124 | topological_order, endless_loop: your code ran for more than 3 s, so it was stopped
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    volatile size_t steps = 0;
    for (Node* node = root; node != nullptr;) steps = steps + 1;
    return order;
}
