// The experiments' result files as the collectors (collect_results, collect_extension) see them:
// where a run's file is, reading it, deleting what a failed, killed or differently-set run left,
// writing the collected outputs whole, and the command-line pieces both share (the seed list, the
// run flags, the usage error with its exit code 2).
// A result file is two lines (experiment/atomic_run.sh writes them): the run's result line, then the
// settings it was made with, so a result made with other settings is never taken for this one's:
//   lag  rope         seed 0: length 32 / 64 / 128: 1.000 / ...
//   settings: train_position lag rope 0 --steps 300
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

// "settings: train_position lag rope 0 --steps 300": the second line of a run's file, for a run of
// train_position TASK SCHEME SEED with the experiment's RUN_FLAGS (spaces between flags as one).
std::string settings_line(const std::string& task, const std::string& scheme, uint64_t seed, const std::string& run_flags);

// "was made with RUN_FLAGS '--steps 30', not ''": why a file of settings `found` is not the run of
// settings `expected` (both settings lines), for the prune and collect messages.
std::string other_settings(const std::string& found, const std::string& expected);

// A run's file as read: its result line (text and parsed) and its settings line.
struct RunFile {
    std::string line;
    ResultLine result;
    std::string settings;
};
// The file at path when it is exactly a result line whose accuracies all lie in [0, 1], then a
// settings line; nullopt otherwise (missing, empty, cut, garbage, one line or three).
std::optional<RunFile> read_run_file(const std::filesystem::path& path);
// "is missing", "is not a regular file" (a folder, a FIFO that would hang a read) or "is N bytes, too
// large for a result" (above max_result_bytes), or "" when the result file at `path` can be read.
constexpr uintmax_t max_result_bytes = 65536;
std::string result_file_problem(const std::filesystem::path& path);

// Why the weights at `weights`, beside a run's result, cannot be the run's (task, scheme, seed), or ""
// when they can: their header must read as a safetensors header (files/weights_file.hpp; the header
// alone, never the tensors, so a prune over many runs stays cheap) whose metadata names the run's task
// and scheme, and its seed when it records one, as train_position --save records them. Anything else
// (garbage, a cut or foreign file) would be kept as a finished run's weights, and make plots or a test
// of the weights would fail on it later.
std::string weights_fault(const std::string& task, const std::string& scheme, uint64_t seed,
                          const std::filesystem::path& weights);

// The --prune step before make runs what is missing: each file expected[i] that exists but whose
// check(i) gives a reason is deleted when it is no valid result for its run, with the weights beside
// it (NAME.safetensors, which the run writes again; a folder there is refused); one that is a valid
// result made with other RUN_FLAGS is set aside, with its weights, in a folder replaced/ beside it,
// so that flags every run then fails with (--lr 1e30 passes every check before a run) never lose a
// finished result; and where expected[i] is missing, a result set aside there that check(i) finds
// made with these flags is put back instead of being run again. Every temporary file a killed run
// left below `folder` is deleted. Each with one line on stdout after "<program>: " ("experiment",
// ...). check returns "" for a file to keep. A `folder` that does not exist holds nothing to prune;
// one that is not a folder is refused (std::runtime_error).
void prune_result_files(const std::vector<std::filesystem::path>& expected, const std::function<std::string(size_t)>& check,
                        const std::filesystem::path& folder, const std::string& program);

// A command line the collector cannot use: one line on stderr and exit code 2.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// What an existing output holds when it is not what a collector writes there, or "" when the collector
// may replace it. An output is replaced only when it is the collector's own, so that one typo in an
// output's path (a source file, a README) never overwrites someone's file. Both give "" when nothing is
// there, when what is there is no regular file (check_output_path, files/atomic_file.hpp, refuses
// that) and when the file is empty: an empty file holds nothing to lose (touch, or a shell's
// "> file" before the collector ran), and refusing it would only make the user delete it by hand.
// A table of result lines (collect_results' TABLE): every line a result line (tasks/result_line.hpp).
std::string not_a_result_table(const std::filesystem::path& path);
// A file whose first line is `heading` (a summary, "# Results: ..."; a picture's data, "# lag: ...").
std::string not_headed_by(const std::filesystem::path& path, const std::string& heading);
// Throws a UsageError naming `what` (the output's name on the command line, "TABLE"), the path and
// `holds` (one of the two above) unless `holds` is "": "<what> <path>: a file is there that <program>
// did not write (<holds>); it replaces only ... so nothing was written: ...". Called for every output
// before any is written.
void refuse_foreign_output(const std::filesystem::path& path, const std::string& what, const std::string& program,
                           const std::string& holds);

// Seeds as typed on a command line: digits only (an integer parse alone would take "-1", "+1" and
// " 1"), below 10^18, none twice, at least one. Throws std::invalid_argument.
std::vector<uint64_t> parse_seed_list(const std::vector<std::string>& texts);
// The collectors' shared command line: [--prune] [--run-flags FLAGS] then the positional arguments
// (folder, table or lengths, seeds). Refused as a UsageError: a flag given twice, --prune anywhere but
// first, --run-flags after a positional argument or without its value, any other "--" word, an empty
// argument. FLAGS (make's RUN_FLAGS, which may be empty or start with "--") comes back with its
// spaces made single, as the runs got it.
struct CollectorCommandLine {
    bool help = false;  // --help (or -h), which stands alone: the program prints its usage and exits 0
    bool prune = false;
    std::string run_flags;
    std::vector<std::string> my_schemes;  // --my-schemes "A B": make's MY_SCHEMES, schemes of the learner's own
    std::vector<std::string> positional;
};
CollectorCommandLine parse_collector_command_line(int argc, char** argv);
// The seeds among the positional arguments, positional[first..], refused as a UsageError when malformed.
std::vector<uint64_t> parse_seed_arguments(const std::vector<std::string>& positional, size_t first);

// Two outputs at one path (or an output over an input) would leave only one: a UsageError naming both.
void require_distinct_paths(const std::vector<std::pair<std::string, std::filesystem::path>>& named);

// A collector's main around `body`: its exit code, or "<program>: <message>" on stderr (on one line:
// startup/output_check.hpp's one_line) and exit code 2 for a UsageError, 1 for any other exception.
// A failed write of stdout is caught at exit (prepare_process, startup/output_check.hpp).
int run_collector(const std::string& program, const std::function<int()>& body);

}  // namespace wai
