// How many threads a run uses, and how they wait for work: no more threads than free cores, and a
// bounded spin, then sleep, chosen before libgomp starts.
// A thread that waits (at the barrier closing a parallel region, or for the next region) spins on a
// flag before it sleeps. libgomp's default is 300,000 spins, about 4 ms on the machine of
// docs/performance.md, and OpenBLAS's OpenMP build waits the same way, its threads being libgomp's.
// When another process holds one of two cores, a thread spinning that long keeps a core that the
// thread it waits for needs: a training step on 2 threads took 5.5 times as long as on 1. Here a
// waiting thread spins 100,000 times (about 1.3 ms there), which still catches nearly every gap
// between a step's parallel regions on an idle machine (2 threads 21% faster than 1, as with the
// default), then sleeps and gives its core up (docs/performance.md, section 10); a shorter spin
// (1,000) held up better under load that starts after start-up but lost the idle gain. libgomp reads the setting only when it loads, so it is set in
// the environment and the program started again (prepare_process, openblas_startup.hpp).
// The thread count follows the cores that are free when it is set: a look of 100 ms at
// /proc/stat, and no more threads than the cores other processes left idle (at least one). A
// thread that must share its core with a busy process holds up every barrier of the step, however
// it waits; one thread fewer does not (and `train_position lag rope 0 --steps 200` prints the same
// line on 1 thread as on 2). OMP_DYNAMIC=false keeps the count asked for.
// Leaves out following load that comes after the count is set.
#pragma once

#include <sched.h>

#include <string>

namespace wai {

// GOMP_SPINCOUNT set when the user set neither it nor OMP_WAIT_POLICY.
inline constexpr const char* chosen_spin_count = "100000";

// Sets GOMP_SPINCOUNT to chosen_spin_count unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set
// already. True when it set it: libgomp has read its setting already, so the program must start
// again for it to count.
bool choose_wait_policy();

// The threads to use when `asked` are asked for: no more than the cores of this process's CPU set
// that were free over the last 100 ms (rounded to the nearest whole core), and at least 1. Returns
// `asked` without looking when it is 1 or less, when OMP_DYNAMIC is "false", or when /proc/stat
// cannot be read.
int threads_for_free_cores(int asked);
// The same from two readings of /proc/stat's text, the CPUs of `cpus` only: `asked` if either
// cannot be read.
int threads_for_free_cores(int asked, const std::string& stat_before, const std::string& stat_after, const cpu_set_t& cpus);

// What waiting threads do in this process, for a benchmark's header: "GOMP_SPINCOUNT=100000",
// "OMP_WAIT_POLICY=passive", or "libgomp's default" when neither is set.
const char* wait_policy_description();

}  // namespace wai
