// What a contained program may change: in a mount namespace of its own, the folders it must not
// change (the checkout, the build) read-only and a /proc of its own PID namespace; and no capability.
// Leaves out the PID namespace itself (containment/processes.hpp) and every folder not named (/tmp
// and the rest stay as writable as they were).
#pragma once

#include <string>
#include <vector>

namespace contain {

// Run by the PID namespace's init before it starts the program: each of `dirs` and everything
// mounted below it read-only, and a /proc of the namespace. Empty when done, else what failed.
std::string contain_mounts(const std::vector<std::string>& dirs);

// Whether the PID namespace's mode works here with `dirs` read-only, tried in a child so that this
// process is left as it was.
bool namespaces_work(const std::vector<std::string>& dirs);

// No capability now or after exec, and none to gain from a set-user-ID program.
void drop_capabilities();

}  // namespace contain
