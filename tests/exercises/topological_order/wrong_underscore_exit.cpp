// Code that ends the program with _exit(0), which no exit handler sees: the checker prints no
// verdict, and the run is judged by that (make exercise, the board, this self-test), never "solved".
// expect: 0 | topological_order, wrong_underscore_exit: your code ended the program before the checker could judge it
#include <unistd.h>

#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) { _exit(0); }
