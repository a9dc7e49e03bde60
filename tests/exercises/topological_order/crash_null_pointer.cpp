// Code that writes through a null pointer: SIGSEGV. The sentence says what the signal means (memory
// the program does not own) and that it cannot tell which line did it, naming no cause of its own.
// expect: 139 | topological_order, crash_null_pointer: your code stopped the program with a bad memory access \(SIGSEGV\).*the signal does not say which line of your code did it | !past the end | !null pointer
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node* root) {
    volatile bool* volatile nowhere = nullptr;
    *nowhere = root->requires_grad;
    return {root};
}
