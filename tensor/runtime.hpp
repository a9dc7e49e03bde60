// Process set-up every whereami program calls first: the right OpenBLAS kernels and a malloc that
// keeps freed tensor memory for the next step.
//   - OpenBLAS 0.3.21 picks its kernels by CPU model and falls back to generic "Prescott" (SSE3)
//     kernels on CPUs newer than itself; on such a machine sgemm ran 4.5x slower (30 vs 134 GFLOP/s).
//     When that happens on a CPU with AVX-512 or AVX2, we name the right kernels in
//     OPENBLAS_CORETYPE and start the program again (the library reads it only when it loads).
//   - Every training step frees and reallocates the same large buffers; by default glibc hands
//     those back to the kernel and page-faults them in again (15% of a step in a profile).
// Leaves out thread counts (set_threads) and non-glibc systems, where these are no-ops.
#pragma once

namespace wai {

// Call at the top of main. May replace the process (execv) once, with the same arguments.
void prepare_process(char** argv);
// OpenMP and OpenBLAS threads, both; n <= 0 leaves the environment's setting.
void set_threads(int n);
// The kernel family OpenBLAS chose ("SkylakeX", "Haswell", "Prescott", ...).
const char* blas_kernels();

}  // namespace wai
