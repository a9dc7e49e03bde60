// What a program checks before OpenBLAS and OpenMP start, so that a bad setting or too small an
// address space is one line and a non-zero exit, not a warning and a run anyway, or a hang:
//   - OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and GOTO_NUM_THREADS, when set, must each be a whole
//     number from 1 to max_threads() (startup/openblas_startup.hpp); anything else ("abc", "", "0",
//     "-3", "99999999", "4,2") is refused with exit code 2. libgomp would only warn and go on, and
//     OpenBLAS would silently ignore it.
//   - Under an address-space limit (ulimit -v, or ulimit -d for data), OpenBLAS's buffers must fit.
//     OpenBLAS maps a buffer (blas_buffer_bytes) for each of its threads when it loads and one for each
//     thread that calls it, and when such an mmap fails it retries forever, spinning at 100% CPU
//     without a word. So the room is checked against what it will map, before it loads (from an
//     ELF .preinit_array function, which runs before any shared library's initialiser) and before
//     each change of thread count; and what it maps later is mapped at once (a buffer taken from its
//     pool on every OpenMP thread at once), so that a run that then runs out of address space fails in our own
//     allocations, as std::bad_alloc, which the programs report as out of memory. Too little room:
//     "<program>: out of memory: ..." naming the limit and what is needed, exit code 1.
// Without a limit none of the second part runs. Leaves out RLIMIT_RSS and cgroup memory limits,
// which the kernel enforces by reclaiming or killing, not by failing an mmap.
#pragma once
#include <cstdint>

namespace wai {

// The buffer OpenBLAS maps per thread: its BUFFER_SIZE plus the pool's own bookkeeping, as Debian's
// libraries have it (measured by [startup] on the library this program runs with): 128 MiB on
// x86-64 in OpenBLAS 0.3.21 and 0.3.29 alike, 32 MiB and 140 KiB on arm64 (room is kept for 33).
#if defined(__aarch64__)
inline constexpr uint64_t blas_buffer_bytes = uint64_t(33) << 20;
#define WAI_BLAS_BUFFER_TEXT "33 MiB"
#else
inline constexpr uint64_t blas_buffer_bytes = uint64_t(128) << 20;
#define WAI_BLAS_BUFFER_TEXT "128 MiB"
#endif

// Before OpenBLAS and OpenMP are set to `threads` threads: exits with the out-of-memory line unless
// what they will map for that many fits under the address-space limit.
void check_room_for_threads(int threads);
// Maps now the buffers OpenBLAS would map on first use by each of OpenMP's threads. Does nothing
// without an address-space limit.
void reserve_blas_buffers();

}  // namespace wai
