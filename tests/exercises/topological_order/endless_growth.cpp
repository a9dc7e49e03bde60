// A wrong answer that never ends and only grows its list: the node it walks from is never moved on.
// Under make exercise's 4 GiB limit it ends with std::bad_alloc, reported as the learner's error.
// expect: 1 | ^topological_order: wrong answer: your code stopped with an error: std::bad_alloc: it ran out of memory
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    for (Node* node = root; node != nullptr;) order.push_back(node);
    return order;
}
