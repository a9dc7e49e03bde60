// Running this build's programs as a user runs them, for the test files that go through them
// (tests/test_cli_*.cpp, tests/test_weights_programs.cpp): a folder of their own, each argument
// quoted for the shell, the exit code and both outputs collected; the tiny model sizes a run takes
// a fraction of a second with; the check that a refusal is one line.
// Leaves out anything one test file alone needs; that stays in the file.
#pragma once
#include "tests/catch.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wai::testing {

extern const std::string build_dir;   // build/, or build/address/ ... for a sanitizer build
extern const std::string source_dir;  // the source tree (for tests/reference/, experiment/chapter_table.txt)

// A fresh folder for one test case, removed at its end; programs run inside it.
struct Folder {
    std::filesystem::path path;
    explicit Folder(const std::string& name);
    ~Folder();
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);
// Every file under `root`, path (relative to it) and bytes, in order: what "every file as it was" compares.
std::map<std::string, std::string> files_under(const std::filesystem::path& root);
std::string quoted(const std::string& text);           // for sh: '...' with each ' written as '\''
std::vector<std::string> words(const std::string& line);  // split on spaces; "<empty>" is ""
std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b);

struct Outcome {
    int status = -1;  // the exit code, or 128 + the signal
    std::string out, err;
    long err_lines() const;
};

// build_dir/program with args, run in `folder` with `input` on stdin; its output kept as tag.out, tag.err.
Outcome run(const Folder& folder, const std::string& program, const std::vector<std::string>& args,
            const std::string& input = "", const std::string& tag = "run");
// What `bash -c text` left, run in `folder` with no input.
Outcome script(const Folder& folder, const std::string& text, const std::string& tag = "script");
// Two train_position runs started together, as make -j2 starts two experiment runs (both must succeed).
std::pair<Outcome, Outcome> run_two_at_once(const Folder& folder, const std::vector<std::string>& first,
                                            const std::vector<std::string>& second);
// build_dir/program, quoted, for a script's command line.
std::string program_path(const std::string& program);

// `text` holds `part` (a plain find: the same with any version of the test framework's matchers).
bool holds(const std::string& text, const std::string& part);

// The sanitizer this test program was built with (build/ or build/NAME/): make is told the same, so it
// uses the programs the tests use.
std::string this_sanitize();

// make run from a test: a make of its own in the source tree (the outer make's job server and flags left out).
Outcome make_in_source(const Folder& folder, const std::vector<std::string>& args, const std::string& tag = "make");

// A model small enough that a run takes a fraction of a second, even under a sanitizer.
extern const std::vector<std::string> tiny;
// TASK SCHEME SEED first, then the tiny sizes the rest of `line` does not give (a flag is taken
// once), then the rest of `line`.
std::vector<std::string> with_tiny_sizes(const std::string& line);
// `start` (TASK SCHEME SEED), the tiny sizes `extra` does not give, then `extra`: each flag once.
std::vector<std::string> tiny_with(const std::vector<std::string>& extra, const std::string& start = "lag none 0");
// tiny_with's arguments as one shell line: "lag rope 0 --steps 3 ...".
std::string tiny_line(const std::string& start, const std::vector<std::string>& extra = {});

// Exit code `status`, nothing on stdout, one line on stderr starting "<program>: " and holding `fragment`.
void check_one_line_refusal(const Outcome& o, int status, const std::string& program, const std::string& fragment);

}  // namespace wai::testing
