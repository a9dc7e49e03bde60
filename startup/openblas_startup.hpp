// Program start-up that every whereami program runs first, before any tensor is made: OpenBLAS
// kernels that suit this CPU, how waiting threads wait, a malloc that keeps freed tensor memory,
// and thread counts.
//   - OpenBLAS picks its kernels by CPU model when it loads, and on an x86-64 CPU newer than the library it
//     falls back to generic SSE3 kernels ("Prescott"), far slower at matrix products. When that
//     happens on a CPU with AVX-512 or AVX2, prepare_process names the right kernels in
//     OPENBLAS_CORETYPE and starts the program again, since OpenBLAS reads it only when it loads.
//   - OpenMP's waiting threads spin for a short while, then sleep, unless the user chose how they
//     wait (startup/thread_policy.hpp); that too is read only when the library loads, and the same
//     re-exec serves both.
//   - Every training step frees and allocates the same large buffers; glibc would hand them back
//     to the kernel after each step and fault them in again, so it is told to keep them.
//   - Thread counts are bounded: --threads and the environment's OMP_NUM_THREADS,
//     OPENBLAS_NUM_THREADS and GOTO_NUM_THREADS take 1 to max_threads(), 4 x the CPUs this process may
//     run on (more only queue up for the same cores; a typo such as 99999999 would ask for that many
//     threads and their buffers). The environment is checked before OpenBLAS loads, and so is its
//     room under an address-space limit (startup/startup_checks.hpp).
//   - Standard output is checked at exit (startup/output_check.hpp).
// The web build, with neither OpenBLAS nor OpenMP, has startup/startup_web.cpp in place of this
// header's native file (startup/openblas_startup.cpp): no re-exec, one thread.
// Leaves out pinning threads to cores, and systems other than glibc on x86-64 and arm64 (on arm64
// the kernels are OpenBLAS's own choice).
#pragma once
#include <string>

namespace wai {

// Call at the top of main. May replace the process (execv) once, with the same arguments.
void prepare_process(char** argv);
// OpenMP and OpenBLAS threads, both; thread_count <= 0 leaves the environment's setting. Either
// way no more than the cores found free (startup/thread_policy.hpp); OMP_DYNAMIC=false keeps it.
// `why`, when given, is the reason for a count the program chose itself (threads_reason, below).
void set_threads(int thread_count, const char* why = nullptr);
// Why set_threads chose its count, for --verbose: "2, every CPU this process may run on", "4 asked
// with --threads, 1 of them free (other processes kept the rest busy)", ...
const std::string& threads_reason();
// 4 x the CPUs this process may run on (sched_getaffinity), the most threads a program takes.
// Safe to call before the C++ library is initialised.
int max_threads();
// `text` as a thread count (tensor/number_text.hpp's rule), from 1 to max_threads(); else
// std::invalid_argument("<what> must be a whole number from 1 to N (4 x the C CPUs this process may
// run on), got '<text>'").
int parse_thread_count(const std::string& text, const std::string& what);
// The start-up's rule, apart from the CPU it runs on: the kernels to name when OpenBLAS alone picked
// `own_choice` on an x86-64 CPU with (or without) AVX-512 and AVX2; null when OpenBLAS's choice stands.
// OpenBLAS falls back to "Prescott" only on a CPU newer than the library (0.3.21 on an Intel Xeon of
// model 207); 0.3.29 knows more CPUs, and the rule then finds nothing to do.
const char* rule_kernels(const char* own_choice, bool avx512f, bool avx2);
// The kernel family OpenBLAS chose ("SkylakeX", "Haswell", "Prescott", ...).
const char* blas_kernels();
// The threads OpenBLAS runs a product on (openblas_get_num_threads).
int blas_threads();
// Where that choice came from: OpenBLAS's own detection, the start-up's rule, or OPENBLAS_CORETYPE in
// the environment, and then what OpenBLAS alone would pick (asked of a copy of this program started
// without it, which prints its kernels and exits).
std::string blas_kernels_origin();

}  // namespace wai
