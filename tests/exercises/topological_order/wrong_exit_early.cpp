// Code that ends the program itself with exit(0), before the checker has judged anything: status 0
// would read as "solved", so the checker's guard turns it into a wrong answer that says so.
// expect: 1 | ^topological_order: wrong answer: your code ended the program before the checker could judge it
#include <cstdlib>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) { std::exit(0); }
