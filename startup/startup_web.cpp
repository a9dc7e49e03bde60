// The web build's program start-up (startup/openblas_startup.hpp's functions), in place of the native
// start-up files, which it leaves out (openblas_startup.cpp, startup_checks.cpp, thread_policy.cpp:
// platform/web.mk). A WebAssembly program under node has no OpenBLAS to pick kernels for, no OpenMP
// threads and no process to start again: the matrix products are the portable loop
// (tensor/gemm_portable.cpp) and a run has one thread. prepare_process has standard output checked
// at exit (startup/output_check.hpp), and takes node's umask: Emscripten's C library starts with
// 0777, so every file a program made (--save, files/atomic_file.cpp) would have no permissions.
// Leaves out the address-space and thread-count checks of the native start-up (nothing here maps
// per-thread buffers), and threads: --threads takes 1 only.
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <sys/stat.h>
#endif

#include <stdexcept>
#include <string>

#include "tensor/number_text.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"

namespace wai {

void prepare_process(char** argv) {
    // In a browser there is no process: files live in memory and keep the usual 022.
#ifdef __EMSCRIPTEN__
    umask(static_cast<mode_t>(EM_ASM_INT({ return typeof process !== 'undefined' && process.umask ? process.umask() : 0o022; })));
#endif
    // argv[0] is the .js file node runs: the program's name is that without ".js".
    static std::string name;
    name = program_name(argv != nullptr ? argv[0] : nullptr);
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".js") == 0) name.resize(name.size() - 3);
    watch_standard_output(name.c_str());
}

void set_threads(int, const char*) {}

const std::string& threads_reason() {
    static const std::string one = "1, the web build's one thread";
    return one;
}

int max_threads() { return 1; }

int parse_thread_count(const std::string& text, const std::string& what) {
    int64_t count = 0;
    try {
        count = parse_integer(text, what);
    } catch (const std::invalid_argument&) {
        count = 0;
    }
    if (count != 1) throw std::invalid_argument(what + " must be 1 (this build runs on one thread), got '" + text + "'");
    return 1;
}

const char* blas_kernels() { return "portable sgemm"; }

int blas_threads() { return 1; }

std::string blas_kernels_origin() { return "no BLAS library in the web build: tensor/gemm_portable.cpp's blocked loop"; }

}  // namespace wai
