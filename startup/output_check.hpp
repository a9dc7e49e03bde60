// Standard output checked when a program ends, so that output lost to a full disk (> /dev/full), a
// closed pipe (| head -c0) or a file-size limit (ulimit -f) is a failure with one line and exit code
// 1, never an exit code 0 with nothing written.
//   - At the start, a closed stdout (`program >&-`) is refused: one line, exit code 1, nothing run.
//   - At exit, stdout is flushed; if that or any earlier write to it failed,
//     "<program>: cannot write to standard output (<reason>)" goes to stderr and the exit code is 1.
//   - SIGPIPE and SIGXFSZ are ignored, so a write to a closed pipe fails with EPIPE, and one past
//     `ulimit -f` with EFBIG, where they would otherwise kill the program without a word. Children
//     the program starts inherit both.
//   - one_line(message) keeps an error message on one line whatever a user typed into it: a
//     control byte (a newline, a tab, an escape) and a byte that is not part of valid UTF-8 are
//     written as \xNN.
// Leaves out standard error: with nowhere left to report, its failures go unreported.
#pragma once
#include <string>

namespace wai {

// Call once, early in main; `program` names the program in the message ("train_position").
void watch_standard_output(const char* program);

// `message` with every control byte and every byte outside valid UTF-8 written as \xNN.
std::string one_line(const std::string& message);

// argv[0] without its folders: "train_position" for "build/train_position".
const char* program_name(const char* argv0);

}  // namespace wai
