// Program start-up: the OpenBLAS kernel choice (kernels named in OPENBLAS_CORETYPE that OpenBLAS did not
// take, or that this CPU cannot run, refused) and the threads' wait policy (with the re-exec),
// malloc tuning, thread counts and their bounds, and the start-up checks (startup/startup_checks.hpp,
// startup/output_check.hpp).
// Leaves out pinning threads to cores.
#include "startup/openblas_startup.hpp"

#include <cblas.h>
#include <errno.h>
#include <signal.h>
#include <malloc.h>
#include <omp.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <stdexcept>

#include "tensor/number_text.hpp"
#include "startup/output_check.hpp"
#include "startup/startup_checks.hpp"
#include "startup/thread_policy.hpp"

extern "C" char* openblas_get_corename(void);

namespace wai {

const char* blas_kernels() { return openblas_get_corename(); }

int blas_threads() { return openblas_get_num_threads(); }

namespace {

// Set in the environment when the start-up's rule names the kernels, so that the program it starts
// again (and the programs that one starts) can say where the choice came from.
constexpr const char* rule_marker = "WAI_BLAS_KERNELS_BY_RULE";
// Set for a copy of this program that only prints OpenBLAS's own choice and exits (blas_kernels_origin).
constexpr const char* probe_marker = "WAI_PRINT_BLAS_KERNELS";

// What OpenBLAS picks for this CPU by itself: this program started again without OPENBLAS_CORETYPE,
// as a probe that prints its kernels and exits; "" if that cannot be run.
std::string own_blas_choice() {
    int out[2];
    if (pipe(out) != 0) return "";
    const pid_t child = fork();
    if (child < 0) {
        close(out[0]);
        close(out[1]);
        return "";
    }
    if (child == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        unsetenv("OPENBLAS_CORETYPE");
        unsetenv(rule_marker);
        setenv(probe_marker, "1", 1);
        char name[] = "blas-kernels-probe";
        char* argv[] = {name, nullptr};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(out[1]);
    std::string text;
    char buffer[128];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    close(out[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

// Names the kernels that suit this CPU in OPENBLAS_CORETYPE when OpenBLAS fell back to its generic
// ones and the user named none; true when it did. The marker holds the name the rule set, so that a
// name the user gives later (in a program this one starts) is never taken for the rule's.
bool name_blas_kernels() {
#if defined(__x86_64__)
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;
    const char* kernels = rule_kernels(blas_kernels(), __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx2"));
    return kernels != nullptr && setenv("OPENBLAS_CORETYPE", kernels, 1) == 0 && setenv(rule_marker, kernels, 1) == 0;
#else
    return false;
#endif
}

// OpenBLAS reads OPENBLAS_CORETYPE when it loads and, given a name it does not know (or, in some
// builds, kernels the CPU cannot run), runs its own choice without a word: a run the user thinks is on
// the kernels named would be on others. Refused in one line, exit code 2, as a bad thread count is.
// Names are compared as OpenBLAS compares them, without case.
void refuse_kernels_not_taken(const char* argv0) {
    const char* named = std::getenv("OPENBLAS_CORETYPE");
    if (named == nullptr || strcasecmp(named, blas_kernels()) == 0) return;
    std::fprintf(stderr, "%s: OPENBLAS_CORETYPE is '%s', which OpenBLAS did not take (a name it does not know, or "
                         "kernels this CPU cannot run): it runs its %s kernels; name kernels it knows for this CPU "
                         "(such as Haswell or SkylakeX on x86-64), or leave it unset\n",
                 program_name(argv0), one_line(named).c_str(), blas_kernels());
    std::exit(2);
}

// OpenBLAS 0.3.21 takes some names without asking whether the CPU can run their kernels (SkylakeX
// on a CPU without AVX-512): the first product then stops the program with an illegal instruction.
// A child process of this one runs a small product on them first; if it dies of a signal, refused in
// one line, exit code 2.
void refuse_kernels_cpu_cannot_run(const char* argv0) {
    const char* named = std::getenv("OPENBLAS_CORETYPE");
    const char* by_rule = std::getenv(rule_marker);
    if (named == nullptr || (by_rule != nullptr && std::strcmp(by_rule, named) == 0)) return;
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) return;
    if (child == 0) {
        const rlimit no_core = {0, 0};  // no core file of the probe's death
        setrlimit(RLIMIT_CORE, &no_core);
        openblas_set_num_threads(1);
        constexpr int n = 64;
        static float a[n * n], b[n * n], c[n * n];
        for (int i = 0; i < n * n; ++i) a[i] = b[i] = 1.0f / static_cast<float>(1 + i % 7);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        _exit(c[0] > 0.0f ? 0 : 1);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFSIGNALED(status)) return;
    const std::string own = own_blas_choice();
    std::fprintf(stderr, "%s: OPENBLAS_CORETYPE is '%s': OpenBLAS took it, but this CPU cannot run those kernels (a "
                         "product on them stopped with %s); name kernels for this CPU%s, or leave it unset\n",
                 program_name(argv0), one_line(named).c_str(),
                 WTERMSIG(status) == SIGILL ? "an illegal instruction" : strsignal(WTERMSIG(status)),
                 own.empty() ? "" : (" (OpenBLAS alone picks " + own + " here)").c_str());
    std::exit(2);
}

}  // namespace

const char* rule_kernels(const char* own_choice, bool avx512f, bool avx2) {
    if (std::strcmp(own_choice, "Prescott") != 0) return nullptr;
    return avx512f ? "SkylakeX" : avx2 ? "Haswell" : nullptr;
}

std::string blas_kernels_origin() {
    const char* named = std::getenv("OPENBLAS_CORETYPE");
    if (named == nullptr) return "OpenBLAS's own choice for this CPU";
    const char* by_rule = std::getenv(rule_marker);
    if (by_rule != nullptr && std::strcmp(by_rule, named) == 0)
        return "named by the start-up's rule: OpenBLAS alone picks its generic Prescott kernels on this CPU";
    const std::string own = own_blas_choice();
    return "named by OPENBLAS_CORETYPE=" + std::string(named) + " in the environment; OpenBLAS alone would pick " +
           (own.empty() ? std::string("(could not be asked)") : own);
}

void prepare_process(char** argv) {
    if (std::getenv(probe_marker) != nullptr) {  // the probe of own_blas_choice: its answer, and nothing else
        std::printf("%s\n", blas_kernels());
        std::fflush(stdout);
        _exit(0);
    }
    // Keep up to 1 GiB of freed memory in the process instead of returning it after every step.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    // One arena for every thread: a thread's own arena grows in heaps of at most 64 MiB that glibc
    // maps and gives back as they empty, so a training step's tensors on a second thread
    // page-faulted anew every step (3.3x the faults and 4x the system time of one thread at D 256,
    // T 256; docs/performance.md, section 14). A step allocates a few hundred tensors: the lock is
    // not contended.
    mallopt(M_ARENA_MAX, 1);

    // Both settings are read by their libraries only when they load: one re-exec serves both.
    const bool kernels_named = name_blas_kernels();
    const bool waits_chosen = choose_wait_policy();
    if (kernels_named || waits_chosen)
        execv("/proc/self/exe", argv);  // returns only if it failed; then carry on with the libraries' defaults
    watch_standard_output(program_name(argv[0]));
    refuse_kernels_not_taken(argv[0]);
    refuse_kernels_cpu_cannot_run(argv[0]);
    // OMP_THREAD_LIMIT caps every parallel region, but OpenBLAS sizes its own from OMP_NUM_THREADS or
    // the CPUs: asked for more threads than a region can have, its threaded products wait for ever on
    // the threads that never come (a spin at 100% CPU). Both are held to the limit.
    const int limit = omp_get_thread_limit();
    if (openblas_get_num_threads() > limit) openblas_set_num_threads(limit);
    if (omp_get_max_threads() > limit) omp_set_num_threads(limit);
    check_room_for_threads(omp_get_max_threads());
    reserve_blas_buffers();
}

namespace {
std::string threads_choice = "OpenMP's own count (set_threads was not called)";
}

void set_threads(int thread_count, const char* why) {
    // No more threads than free cores (startup/thread_policy.hpp), for a count asked for or the environment's.
    const int asked = thread_count > 0 ? thread_count : omp_get_max_threads();
    const int free_cores = threads_for_free_cores(asked);
    const int used = std::min(free_cores, omp_get_thread_limit());  // OMP_THREAD_LIMIT, as above
    const char* environment = std::getenv("OMP_NUM_THREADS");
    threads_choice = std::to_string(asked) + (why != nullptr                          ? std::string(", ") + why
                                              : thread_count > 0                        ? " asked with --threads"
                                              : environment != nullptr && *environment ? " asked with OMP_NUM_THREADS"
                                                                                       : ", every CPU this process may run on");
    if (free_cores < asked) threads_choice += ", " + std::to_string(free_cores) + " of them free (other processes kept the rest busy)";
    if (used < free_cores) threads_choice += ", held to OMP_THREAD_LIMIT=" + std::to_string(omp_get_thread_limit());
    if (thread_count <= 0 && used == asked) return;
    check_room_for_threads(used);
    omp_set_num_threads(used);
    openblas_set_num_threads(used);
    reserve_blas_buffers();
}

const std::string& threads_reason() { return threads_choice; }

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
