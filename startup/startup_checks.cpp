// The start-up checks: the thread-count environment and OpenBLAS's room, from .preinit_array and
// again from prepare_process and set_threads. The .preinit_array part runs before libstdc++ and
// the shared libraries are initialised, so it uses only system calls and plain character buffers.
// Leaves out OpenBLAS builds whose buffer differs from Debian's: 128 MiB on x86-64 (0.3.21 in Debian
// 12 and 0.3.29 in Debian 13 alike), 32 MiB on arm64; [startup] measures it against blas_buffer_bytes.
#include "startup/startup_checks.hpp"

#include <cblas.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"

// OpenBLAS's buffer pool, exported by libopenblas though not declared in cblas.h: every level-3
// call takes a buffer from it on entry (blas_memory_alloc(0)) and gives it back on return.
extern "C" void* blas_memory_alloc(int procpos);
extern "C" void blas_memory_free(void* buffer);

namespace wai {

namespace {

constexpr uint64_t mib = uint64_t(1) << 20;
constexpr uint64_t blas_buffer = blas_buffer_bytes;
constexpr uint64_t per_thread = 16 * mib;    // a thread's stack (8 MiB by default) and its share of the rest
constexpr uint64_t headroom = 64 * mib;      // what start-up maps besides, before the run's own tensors

const char* program = "whereami";

// One line built without the C++ library (the .preinit_array part runs before it is initialised).
struct Line {
    char text[600];
    size_t size = 0;
    void add(const char* s) {
        while (*s != '\0' && size + 1 < sizeof text) text[size++] = *s++;
    }
    void add(uint64_t n) {
        char digits[24];
        int count = 0;
        do digits[count++] = static_cast<char>('0' + n % 10), n /= 10;
        while (n != 0);
        while (count > 0 && size + 1 < sizeof text) text[size++] = digits[--count];
    }
    // `s` between quotes, each byte that is not printable ASCII as \xNN, so the line stays one line.
    void add_quoted(const char* s) {
        add("'");
        for (; *s != '\0' && size + 5 < sizeof text; ++s) {
            const unsigned char c = static_cast<unsigned char>(*s);
            if (c >= 0x20 && c < 0x7f) {
                text[size++] = static_cast<char>(c);
                continue;
            }
            const char* hex = "0123456789abcdef";
            const char escaped[5] = {'\\', 'x', hex[c >> 4], hex[c & 15], '\0'};
            add(escaped);
        }
        add("'");
    }
    [[noreturn]] void fail(int status) {
        text[size++] = '\n';
        for (size_t at = 0; at < size;) {
            const ssize_t n = write(STDERR_FILENO, text + at, size - at);
            if (n <= 0) break;
            at += static_cast<size_t>(n);
        }
        _exit(status);
    }
};

const char* find_variable(char** envp, const char* name) {
    const size_t length = std::strlen(name);
    for (char** e = envp; e != nullptr && *e != nullptr; ++e)
        if (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
    return nullptr;
}

// A thread count by number_text's rule (digits, an optional leading '-'), from 1 to max_threads();
// 0 when it is anything else.
int thread_count_or_zero(const char* text) {
    const char* digits = text[0] == '-' ? text + 1 : text;
    if (*digits == '\0' || text[0] == '-') return 0;  // "-3" is a number, but never a thread count
    uint64_t value = 0;
    for (const char* c = digits; *c != '\0'; ++c) {
        if (*c < '0' || *c > '9') return 0;
        value = value * 10 + static_cast<uint64_t>(*c - '0');
        if (value > static_cast<uint64_t>(max_threads())) return 0;
    }
    return value >= 1 ? static_cast<int>(value) : 0;
}

// A value in kB from /proc/self/status ("VmSize:", "VmData:"), or 0 if it cannot be read.
uint64_t status_kb(const char* key) {
    const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return 0;
    buffer[n] = '\0';
    const char* at = std::strstr(buffer, key);
    if (at == nullptr) return 0;
    at += std::strlen(key);
    while (*at == ' ' || *at == '\t') ++at;
    uint64_t kb = 0;
    while (*at >= '0' && *at <= '9') kb = kb * 10 + static_cast<uint64_t>(*at++ - '0');
    return kb;
}

// Exits with the out-of-memory line unless `needed` more bytes fit under RLIMIT_AS and RLIMIT_DATA;
// `because` says what is about to be mapped.
void require_room(uint64_t needed, const char* because, uint64_t count) {
    const struct {
        int resource;
        const char* name;
        const char* key;
    } limits[] = {{RLIMIT_AS, "address-space limit (ulimit -v)", "VmSize:"}, {RLIMIT_DATA, "data limit (ulimit -d)", "VmData:"}};
    for (const auto& limit : limits) {
        rlimit r{};
        if (getrlimit(limit.resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
        const uint64_t used = status_kb(limit.key) * 1024;
        const uint64_t cap = static_cast<uint64_t>(r.rlim_cur);
        if (used + needed <= cap) continue;
        Line line;
        line.add(program);
        line.add(": out of memory: the ");
        line.add(limit.name);
        line.add(" is ");
        line.add(cap / mib);
        line.add(" MiB, and OpenBLAS ");
        line.add(because);
        line.add(" (");
        line.add(count);
        line.add(" here): a run needs at least ");
        line.add((used + needed + mib - 1) / mib);
        line.add(" MiB before its own tensors; raise the limit, or use fewer threads (--threads, OMP_NUM_THREADS)");
        line.fail(1);
    }
}

bool has_room_limit() {
    rlimit as{}, data{};
    return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
           (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
}

// Runs before every shared library's initialiser, OpenBLAS's and libgomp's included.
void check_before_libraries(int, char** argv, char** envp) {
    program = program_name(argv != nullptr ? argv[0] : nullptr);
    int omp_threads = 0;
    for (const char* name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"}) {
        const char* value = find_variable(envp, name);
        if (value == nullptr) continue;
        const int count = thread_count_or_zero(value);
        if (count == 0) {
            Line line;
            line.add(program);
            line.add(": ");
            line.add(name);
            line.add(" is ");
            line.add_quoted(value);
            line.add(": a thread count must be a whole number from 1 to ");
            line.add(static_cast<uint64_t>(max_threads()));
            line.add(" (4 x the ");
            line.add(static_cast<uint64_t>(max_threads() / 4));
            line.add(" CPUs this process may run on), or leave it unset");
            line.fail(2);
        }
        if (name[1] == 'M') omp_threads = count;  // OMP_NUM_THREADS
    }
    if (!has_room_limit()) return;
    // OpenBLAS's OpenMP build starts min(OMP_NUM_THREADS or the CPU count, the CPU count) threads,
    // counting the machine's CPUs, not the ones this process may run on (under taskset -c 0 on two
    // CPUs it maps two buffers).
    const long machine = std::max(sysconf(_SC_NPROCESSORS_CONF), sysconf(_SC_NPROCESSORS_ONLN));
    const int cpus = std::max(max_threads() / 4, static_cast<int>(std::min(machine, 1L << 16)));
    const int blas_threads = omp_threads > 0 && omp_threads < cpus ? omp_threads : cpus;
    require_room(blas_threads * blas_buffer + headroom, "maps a " WAI_BLAS_BUFFER_TEXT " buffer for each of its threads when it loads",
                 static_cast<uint64_t>(blas_threads));
}

__attribute__((section(".preinit_array"), used)) void (*const run_before_libraries)(int, char**, char**) =
    check_before_libraries;

}  // namespace

void check_room_for_threads(int threads) {
    const int blas_threads = openblas_get_num_threads();
    if (!has_room_limit() || threads <= blas_threads) return;
    require_room((threads - blas_threads) * blas_buffer + headroom, "maps a " WAI_BLAS_BUFFER_TEXT " buffer for each thread it is given",
                 static_cast<uint64_t>(threads));
}

void reserve_blas_buffers() {
    if (!has_room_limit()) return;
    // What cblas_sgemm takes on entry and gives back on return, held on every OpenMP thread at once, one
    // thread after another, so that each buffer's mmap it may make is checked first. A buffer given
    // back stays mapped in OpenBLAS's table, and the products later reuse it.
    const int threads = omp_get_max_threads();
    require_room(threads * (blas_buffer + per_thread) + headroom, "maps a " WAI_BLAS_BUFFER_TEXT " buffer for each thread that calls it",
                 static_cast<uint64_t>(threads));  // all of it at once, so that the line names the whole need
    std::vector<void*> held(static_cast<size_t>(threads), nullptr);
    #pragma omp parallel num_threads(threads)
    {
        const int me = omp_get_thread_num();
        for (int turn = 0; turn < omp_get_num_threads(); ++turn) {
            if (turn == me) {
                require_room(blas_buffer + per_thread + headroom, "maps a " WAI_BLAS_BUFFER_TEXT " buffer for each thread that calls it",
                             static_cast<uint64_t>(omp_get_num_threads()));
                held[static_cast<size_t>(me)] = blas_memory_alloc(0);
            }
            #pragma omp barrier
        }
        blas_memory_free(held[static_cast<size_t>(me)]);
    }
}

}  // namespace wai
