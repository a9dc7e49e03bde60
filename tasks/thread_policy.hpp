// How OpenMP's threads wait for work: a short spin, then sleep, chosen before libgomp starts.
// A thread that waits (at the barrier closing a parallel region, or for the next region) spins on a
// flag before it sleeps. libgomp's default is 300,000 spins, about 4 ms on the machine of
// docs/performance.md, and OpenBLAS's OpenMP build waits the same way, its threads being libgomp's.
// When another process holds one of two cores, a thread spinning that long keeps a core that the
// thread it waits for needs: a training step on 2 threads took 5.5 times as long as on 1. Here a
// waiting thread spins 1,000 times (about 13 us there), which still catches the 40% of the gaps
// between a step's parallel regions that are shorter, then sleeps and gives its core up
// (docs/performance.md, section 10). libgomp reads the setting only when it loads, so it is set in
// the environment and the program started again (prepare_process, openblas_startup.hpp).
// Leaves out changing the thread count with the machine's load: a run's thread count is what was
// asked for, so its numbers do not depend on what else the machine was doing.
#pragma once

namespace wai {

// GOMP_SPINCOUNT set when the user set neither it nor OMP_WAIT_POLICY.
inline constexpr const char* chosen_spin_count = "1000";

// Sets GOMP_SPINCOUNT to chosen_spin_count unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set
// already. True when it set it: libgomp has read its setting already, so the program must start
// again for it to count.
bool choose_wait_policy();

// What waiting threads do in this process, for a benchmark's header: "GOMP_SPINCOUNT=1000",
// "OMP_WAIT_POLICY=passive", or "libgomp's default" when neither is set.
const char* wait_policy_description();

}  // namespace wai
