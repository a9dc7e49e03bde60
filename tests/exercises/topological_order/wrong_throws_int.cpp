// Code that throws something that is not a std::exception (here an int): named with its value, not
// taken for a crash (uncaught, it would end the program with SIGABRT like a failed assertion).
// expect: 1 | ^topological_order: wrong answer: your code stopped with an error: an exception that is not a std::exception: 42$
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) { throw 42; }
