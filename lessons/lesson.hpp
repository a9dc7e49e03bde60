// What every lesson program shares: refusing arguments it does not take, printing a claim of the
// chapter with our numbers, checking it, and ending with "lesson NN: ok" or a clear failure and a
// non-zero exit.
// Leaves out the teaching itself, which is in each lesson's own file.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"

namespace lesson {

// Whether the lesson runs in the web page (built with WAI_IN_PAGE, platform/web.mk) rather than in a
// clone: a lesson that sends the reader to a make command names the page's own section there instead.
#ifdef WAI_IN_PAGE
constexpr bool in_page = true;
#else
constexpr bool in_page = false;
#endif

// The first call of every lesson: the process's start-up, then its command line: nothing, or `extra`
// for a lesson that has one flag of its own (lesson 06's --try). Returns whether `extra` was given.
// Anything else, and `extra` given twice, is refused with one line and exit code 2, rather than
// ignored (a mistyped flag would otherwise seem to have done something). A lesson's model is always
// the plain one, the chain of ops the lesson reads.
// An error nothing caught (an index past a tensor's end, in a lesson you changed, say) ends the
// lesson with its message on one line and exit code 1, rather than an abort and a core dump.
[[noreturn]] inline void report_uncaught() {
    std::fflush(stdout);  // what the lesson printed first comes first, when both go to one pipe or file
    try {
        std::rethrow_exception(std::current_exception());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lesson stopped: %s\n", wai::one_line(e.what()).c_str());
    } catch (...) {
        std::fprintf(stderr, "lesson stopped: an unknown error\n");
    }
    std::exit(1);
}

inline bool take_arguments(int argc, char** argv, const char* extra = nullptr) {
    wai::prepare_process(argv);  // the OpenBLAS kernels for this CPU (startup/openblas_startup.hpp)
    std::set_terminate(report_uncaught);
    bool extra_given = false;
    const auto refuse = [&](const std::string& problem) {
        if (extra != nullptr)
            std::fprintf(stderr, "%s: %s: this lesson takes %s, at most once, and nothing else (lessons/README.md)\n",
                         wai::one_line(argv[0]).c_str(), wai::one_line(problem).c_str(), extra);
        else
            std::fprintf(stderr, "%s: %s: this lesson takes no arguments (lessons/README.md)\n", wai::one_line(argv[0]).c_str(),
                         wai::one_line(problem).c_str());
        std::exit(2);
    };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (extra != nullptr && arg == extra) {
            if (extra_given) refuse(arg + " is given twice");
            extra_given = true;
            continue;
        }
        refuse("unknown argument '" + arg + "'");
    }
    return extra_given;
}

// Counts the claims that did not hold; finish() turns the count into the exit code.
inline int& failures() {
    static int count = 0;
    return count;
}

// Prints "  [ok] claim" or "  [FAILED] claim: detail" and remembers a failure.
inline void check(bool holds, const std::string& claim, const std::string& detail = "") {
    if (holds) std::printf("  [ok] %s\n", claim.c_str());
    else {
        std::printf("  [FAILED] %s%s%s\n", claim.c_str(), detail.empty() ? "" : ": ", detail.c_str());
        ++failures();
    }
}

inline void heading(const std::string& text) { std::printf("\n%s\n", text.c_str()); }

// The last line of every lesson, and its exit code. `whose` says whose claims the checks hold: the
// chapter's, but lesson 00 checks the engine against numbers worked out by hand.
inline int finish(const char* number, const char* whose = "of the chapter") {
    if (failures() == 0) {
        std::printf("lesson %s: ok\n", number);
        return 0;
    }
    std::printf("lesson %s: %d claim%s %s did not hold in our numbers\n", number, failures(),
                failures() == 1 ? "" : "s", whose);
    return 1;
}

}  // namespace lesson
