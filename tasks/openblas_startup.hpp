// Program start-up that every whereami program runs first, before any tensor is made: OpenBLAS
// kernels that suit this CPU, how waiting threads wait, a malloc that keeps freed tensor memory,
// and thread counts.
//   - OpenBLAS picks its kernels by CPU model when it loads, and on a CPU newer than the library it
//     falls back to generic SSE3 kernels ("Prescott"), far slower at matrix products. When that
//     happens on a CPU with AVX-512 or AVX2, prepare_process names the right kernels in
//     OPENBLAS_CORETYPE and starts the program again, since OpenBLAS reads it only when it loads.
//   - OpenMP's waiting threads spin for a short while, then sleep, unless the user chose how they
//     wait (tasks/thread_policy.hpp); that too is read only when the library loads, and the same
//     re-exec serves both.
//   - Every training step frees and allocates the same large buffers; glibc would hand them back
//     to the kernel after each step and fault them in again, so it is told to keep them.
// Leaves out pinning threads to cores, and systems other than glibc on x86-64.
#pragma once

namespace wai {

// Call at the top of main. May replace the process (execv) once, with the same arguments.
void prepare_process(char** argv);
// OpenMP and OpenBLAS threads, both; thread_count <= 0 leaves the environment's setting. Either
// way no more than the cores found free (tasks/thread_policy.hpp); OMP_DYNAMIC=false keeps it.
void set_threads(int thread_count);
// The kernel family OpenBLAS chose ("SkylakeX", "Haswell", "Prescott", ...).
const char* blas_kernels();

}  // namespace wai
