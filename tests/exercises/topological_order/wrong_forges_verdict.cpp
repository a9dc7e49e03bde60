// Code that prints the checker's own verdict line, "solved", and ends the program with _exit(0)
// before the checker has judged: a printed line is output, not a verdict (make exercise takes the
// verdict from the checker's own descriptor), so the run is judged as ended without one.
// expect: 0 | topological_order, wrong_forges_verdict: your code ended the program before the checker could judge it
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    std::printf("topological_order: solved\n");
    std::fflush(stdout);
    _exit(0);
}
