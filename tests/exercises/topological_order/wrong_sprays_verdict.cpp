// Code that writes the checker's own verdict line, "solved", to every descriptor from 3 to 1023 (the
// verdict's among them), then ends the program with _exit(0): only a line with contain's token is a
// verdict, so the run is judged as ended without one.
// expect: 0 | topological_order, wrong_sprays_verdict: your code ended the program before the checker could judge it
#include <unistd.h>

#include <cstring>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    const char* line = "topological_order: solved\n";
    for (int fd = 3; fd < 1024; ++fd) (void)!write(fd, line, std::strlen(line));
    _exit(0);
}
