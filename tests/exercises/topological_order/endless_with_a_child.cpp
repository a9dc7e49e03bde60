// Code that never ends and starts a process that ignores SIGTERM: at the time limit the program is
// stopped, and so is the child that would have outlived it (contain.sh), with a line saying so.
// seconds: 3
// expect: 124 | your code left 1 process\(es\) running after the program ended | topological_order, endless_with_a_child: your code ran for more than 3 s, so it was stopped
#include <signal.h>
#include <unistd.h>

#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    if (fork() == 0) {
        signal(SIGTERM, SIG_IGN);
        for (;;) pause();
    }
    volatile long steps = 0;
    for (;;) steps = steps + 1;
}
