// Code that stops the program with SIGABRT and prints nothing first (abort() stands in for any
// undefined behaviour that ends this way): the sentence says the cause cannot be told, and blames
// neither an index past the end nor a failed assertion nor the heap.
// expect: 134 | topological_order, crash_abort_no_reason: your code stopped the program with SIGABRT \(abort\) and printed no reason for it; the signal does not say which line | !past the end | !failed assertion | !heap
#include <cstdlib>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    std::abort();
}
