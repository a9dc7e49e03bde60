// A wrong answer that stops the program: an off-by-one loop (<= size) reads one parent past the end
// of node->parents; the standard library's checks (on in the exercise build) abort there, and make
// exercise says so, naming the index past the end that the assertion's line shows, instead of
// passing a status that is no verdict.
// expect: 134 | Assertion '__n < this->size\(\)' failed | topological_order, crash_past_the_end: your code stopped the program with a failed assertion \(SIGABRT\): a std::vector was indexed past its end \(.*stl_vector.h:[0-9]+: Assertion '__n < this->size\(\)' failed | !heap corrupted
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node* root) {
    std::vector<Node*> order;
    for (size_t i = 0; i <= root->parents.size(); ++i) order.push_back(root->parents[i].node());
    order.push_back(root);
    return order;
}
