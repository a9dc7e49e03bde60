// The exit-time check of standard output: an atexit handler that flushes it and asks whether any
// write to it failed. Leaves out retrying a failed write, and closing stdout (later handlers may print).
#include "tasks/output_check.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace wai {

namespace {

const char* watched_program = "whereami";

void check_standard_output() {
    errno = 0;
    bool failed = std::fflush(stdout) != 0;
    int reason = errno;
    failed = failed || std::ferror(stdout) != 0;
    if (!failed) return;
    std::fprintf(stderr, "%s: cannot write to standard output (%s)\n", watched_program,
                 reason != 0 ? std::strerror(reason) : "an earlier write to it failed");
    _exit(1);  // at exit already: the exit code is all that is left to change
}

}  // namespace

const char* program_name(const char* argv0) {
    if (argv0 == nullptr || *argv0 == '\0') return "whereami";
    const char* slash = std::strrchr(argv0, '/');
    return slash != nullptr && slash[1] != '\0' ? slash + 1 : argv0;
}

void watch_standard_output(const char* program) {
    static bool watching = false;
    watched_program = program;
    if (watching) return;
    watching = true;
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    std::atexit(check_standard_output);
}

}  // namespace wai
