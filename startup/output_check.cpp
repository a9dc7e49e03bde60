// The exit-time check of standard output: an atexit handler that flushes it and asks whether any
// write to it failed. Leaves out retrying a failed write, and closing stdout (later handlers may print).
#include "startup/output_check.hpp"

#include <fcntl.h>
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

std::string one_line(const std::string& message) {
    std::string out;
    const auto escape = [&](unsigned char c) {
        const char* hex = "0123456789abcdef";
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
    };
    for (size_t i = 0; i < message.size();) {
        const unsigned char c = static_cast<unsigned char>(message[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        // A UTF-8 sequence: a lead byte 0xC2..0xF4 and its continuation bytes 0x80..0xBF, no
        // overlong form, no surrogate, nothing past U+10FFFF.
        const size_t length = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        bool valid = length > 0 && i + length <= message.size();
        for (size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(message[i + k]) & 0xc0) == 0x80;
        if (valid && length >= 3) {
            const unsigned char second = static_cast<unsigned char>(message[i + 1]);
            if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) || (c == 0xf0 && second < 0x90) ||
                (c == 0xf4 && second > 0x8f))
                valid = false;
        }
        if (!valid) {
            escape(c);
            ++i;
            continue;
        }
        out.append(message, i, length);
        i += length;
    }
    return out;
}

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
    // A closed standard output (`program >&-`) would lose every line after all the work, and the
    // first file the program opens would take its descriptor and get them: refused before any work.
    if (fcntl(STDOUT_FILENO, F_GETFD) == -1 && errno == EBADF) {
        std::fprintf(stderr, "%s: standard output is closed; nothing run (give it a file, a pipe or a terminal; "
                             "> /dev/null to drop it)\n", program);
        std::exit(1);
    }
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    std::atexit(check_standard_output);
}

}  // namespace wai
