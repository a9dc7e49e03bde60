// The experiments' result files as the collectors (collect_results, collect_extension) see them:
// where a run's file is, reading its one result line, deleting what a failed or killed run left,
// writing the collected outputs whole, and the command-line pieces both share (the seed list, the
// usage error with its exit code 2).
// Leaves out what a result line says (tasks/result_line.hpp) and which runs a collector expects.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tasks/result_line.hpp"

namespace wai {

// "lag_rope-1000000_seed0": the run's name in file names, ':' written as '-' (make cannot have ':'
// in a target name).
std::string run_name(const std::string& task, const std::string& scheme, uint64_t seed);
// folder/lag_rope-1000000_seed0.txt
std::filesystem::path run_file(const std::filesystem::path& folder, const std::string& task, const std::string& scheme,
                               uint64_t seed);

// The text of a file that holds exactly one line, or nullopt (missing, empty, or more than one line).
std::optional<std::string> read_single_line(const std::filesystem::path& path);
// That line as a result line, or nullopt when it is not one.
std::optional<ResultLine> read_result_file(const std::filesystem::path& path);

// The --prune step before make runs what is missing: each file expected[i] that exists but is not
// is_valid(i) (one valid line for its run) is deleted, and so is every temporary file a killed run
// left below `folder`; each with one line on stdout after "<program>: " ("experiment", ...).
void prune_result_files(const std::vector<std::filesystem::path>& expected, const std::function<bool(size_t)>& is_valid,
                        const std::filesystem::path& folder, const std::string& program);

// Whole or not at all, never through a symbolic link, through write_file_atomically
// (tasks/atomic_file.hpp): a temporary file beside it, renamed over it.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// A command line the collector cannot use: one line on stderr and exit code 2.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Seeds as typed on a command line: digits only (an integer parse alone would take "-1", "+1" and
// " 1"), below 10^18, none twice, at least one. Throws std::invalid_argument.
std::vector<uint64_t> parse_seed_list(const std::vector<std::string>& texts);
// The seed arguments argv[first..], refused as a UsageError when malformed; and the whole command
// line's shape, which both collectors share: no argument empty, --prune only as the first, no other
// flag ("--prune --prune", "--seeds" and "" are refused).
std::vector<uint64_t> parse_seed_arguments(int argc, char** argv, int first);

// A collector's main around `body`: its exit code, or "<program>: <message>" on stderr (on one line:
// tasks/output_check.hpp's one_line) and exit code 2 for a UsageError, 1 for any other exception.
// A failed write of stdout is caught at exit (prepare_process, tasks/output_check.hpp).
int run_collector(const std::string& program, const std::function<int()>& body);

}  // namespace wai
