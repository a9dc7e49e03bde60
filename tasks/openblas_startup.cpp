// Program start-up: the OpenBLAS kernel choice and the threads' wait policy (with the re-exec),
// malloc tuning, thread counts and their bounds, and the start-up checks (tasks/startup_checks.hpp,
// tasks/output_check.hpp).
// Leaves out pinning threads to cores.
#include "tasks/openblas_startup.hpp"

#include <cblas.h>
#include <malloc.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "positional/number_text.hpp"
#include "tasks/output_check.hpp"
#include "tasks/startup_checks.hpp"
#include "tasks/thread_policy.hpp"

extern "C" char* openblas_get_corename(void);

namespace wai {

const char* blas_kernels() { return openblas_get_corename(); }

namespace {

// Names the kernels that suit this CPU in OPENBLAS_CORETYPE when OpenBLAS fell back to its generic
// ones and the user named none; true when it did.
bool name_blas_kernels() {
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::strcmp(blas_kernels(), "Prescott") != 0) return false;
    const char* kernels = __builtin_cpu_supports("avx512f") ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : nullptr;
    return kernels != nullptr && setenv("OPENBLAS_CORETYPE", kernels, 1) == 0;
}

}  // namespace

void prepare_process(char** argv) {
    // Keep up to 1 GiB of freed memory in the process instead of returning it after every step.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    // Both settings are read by their libraries only when they load: one re-exec serves both.
    const bool kernels_named = name_blas_kernels();
    const bool waits_chosen = choose_wait_policy();
    if (kernels_named || waits_chosen)
        execv("/proc/self/exe", argv);  // returns only if it failed; then carry on with the libraries' defaults
    watch_standard_output(program_name(argv[0]));
    check_room_for_threads(omp_get_max_threads());
    reserve_blas_buffers();
}

void set_threads(int thread_count) {
    // No more threads than free cores (tasks/thread_policy.hpp), for a count asked for or the environment's.
    const int asked = thread_count > 0 ? thread_count : omp_get_max_threads();
    const int used = threads_for_free_cores(asked);
    if (thread_count <= 0 && used == asked) return;
    check_room_for_threads(used);
    omp_set_num_threads(used);
    openblas_set_num_threads(used);
    reserve_blas_buffers();
}

int max_threads() {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    long count = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    if (count < 1) count = 1;
    return static_cast<int>(4 * count);
}

int parse_thread_count(const std::string& text, const std::string& what) {
    const std::string range = "from 1 to " + std::to_string(max_threads()) + " (4 x the " +
                              std::to_string(max_threads() / 4) + " CPUs this process may run on)";
    int64_t count = 0;
    try {
        count = parse_integer(text, what);
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument(what + " must be a whole number " + range + ", got '" + text + "'");
    }
    if (count < 1 || count > max_threads())
        throw std::invalid_argument(what + " must be a whole number " + range + ", got '" + text + "'");
    return static_cast<int>(count);
}

}  // namespace wai
