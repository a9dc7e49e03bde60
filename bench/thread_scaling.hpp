// bench_step's two timings of train_position's own training step (the fast kernels, the batch in
// micro-batches: fast/split_step.hpp) on threads: --scaling T, 1 thread against T as the machine is
// and with one core held by a busy loop (bench/busy_core.hpp), and --train-step T, that step alone on
// T threads in the format make bench-torch reads. Each prints its lines and returns the program's
// exit status. Leaves out the step's breakdown into its parts (bench_step.cpp).
#pragma once
#include "bench/bench_flags.hpp"

namespace wai::bench {

// 1 thread against `threads` threads asked for, `repeats` times `steps` steps each, both ratios printed.
int thread_scaling(int threads, int steps, int repeats, const Sizes& sizes);

// The step on `threads` threads asked for: the median over `repeats` of ms per step over `steps` steps.
int train_step(int threads, int steps, int repeats, const Sizes& sizes);

}  // namespace wai::bench
