// Program start-up: the OpenBLAS kernel choice (with the re-exec), malloc tuning, thread counts.
// Leaves out pinning threads to cores.
#include "tasks/openblas_startup.hpp"

#include <cblas.h>
#include <malloc.h>
#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern "C" char* openblas_get_corename(void);

namespace wai {

const char* blas_kernels() { return openblas_get_corename(); }

void prepare_process(char** argv) {
    // Keep up to 1 GiB of freed memory in the process instead of returning it after every step.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::strcmp(blas_kernels(), "Prescott") != 0) return;
    const char* kernels = __builtin_cpu_supports("avx512f") ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : nullptr;
    if (kernels == nullptr) return;
    setenv("OPENBLAS_CORETYPE", kernels, 1);
    execv("/proc/self/exe", argv);  // returns only if it failed; then carry on with the slow kernels
}

void set_threads(int thread_count) {
    if (thread_count <= 0) return;
    omp_set_num_threads(thread_count);
    openblas_set_num_threads(thread_count);
}

}  // namespace wai
