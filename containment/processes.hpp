// The processes a contained program starts: a PID namespace to hold them where the kernel allows
// one, and, everywhere, finding them through /proc alone (no procps) and killing them.
// Leaves out starting the program and its limits (programs/contain.cpp).
#pragma once

#include <sys/types.h>

#include <set>

namespace contain {

// Every live (not yet zombie) descendant of this process.
std::set<pid_t> live_descendants();

// Kills every descendant and reaps it until this process has no child at all; returns those it
// killed, except `spared`.
std::set<pid_t> kill_descendants(pid_t spared);

// Enters a PID namespace for the children this process starts next (as root, or in a user namespace
// of the user's own); false where the kernel refuses, and then nothing has changed.
bool enter_pid_namespace();

}  // namespace contain
