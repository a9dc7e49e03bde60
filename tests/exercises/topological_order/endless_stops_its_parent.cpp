// Code that sends SIGSTOP and SIGKILL to its parent, then never ends. In contain's PID namespace its
// parent is the namespace's init, which ignores both, and the run is stopped at the limit; in the
// subreaper mode it is contain itself (tests/test_cli_exercises.cpp runs this fixture in each mode).
// Not in the self-test, where the subreaper mode could not outlast the SIGSTOP:
// expect: none
#include <signal.h>
#include <unistd.h>

#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    kill(getppid(), SIGSTOP);
    kill(getppid(), SIGKILL);
    volatile long steps = 0;
    for (;;) steps = steps + 1;
}
