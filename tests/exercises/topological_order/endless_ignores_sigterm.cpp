// Code that ignores SIGTERM and blocks every signal it can, then never ends: at the time limit it is
// killed all the same (SIGKILL, which no code can ignore or block), and the run ends on time.
// seconds: 2
// expect: 124 | topological_order, endless_ignores_sigterm: your code ran for more than 2 s, so it was stopped
#include <signal.h>

#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    signal(SIGTERM, SIG_IGN);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, nullptr);
    volatile long steps = 0;
    for (;;) steps = steps + 1;
}
