// What every lesson program shares: refusing arguments it does not take, printing a claim of the
// chapter with our numbers, checking it, and ending with "lesson NN: ok" or a clear failure and a
// non-zero exit.
// Leaves out the teaching itself, which is in each lesson's own file.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tasks/openblas_startup.hpp"

namespace lesson {

// For a lesson that takes no arguments: anything on its command line is refused with one line and exit
// code 2, rather than ignored (a mistyped flag would otherwise seem to have done something).
inline void take_no_arguments(int argc, char** argv) {
    if (argc <= 1) return;
    std::fprintf(stderr, "%s: unknown argument '%s': this lesson takes no arguments (lessons/README.md)\n", argv[0],
                 argv[1]);
    std::exit(2);
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

// The last line of every lesson, and its exit code.
inline int finish(const char* number) {
    if (failures() == 0) {
        std::printf("lesson %s: ok\n", number);
        return 0;
    }
    std::printf("lesson %s: %d claim%s of the chapter did not hold in our numbers\n", number, failures(),
                failures() == 1 ? "" : "s");
    return 1;
}

}  // namespace lesson
