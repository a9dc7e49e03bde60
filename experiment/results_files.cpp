// Result files for the collectors: names, two-line reads, pruning, atomic writes, seeds, flags, exit codes.
// Leaves out the folder's lock: make holds RESULTS/.lock while a collector runs (the prune only reads a
// run's own lock on its temporary result, to leave a live run's files alone).
#include "experiment/results_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tensor/number_text.hpp"
#include "positional/spec.hpp"
#include "files/weights_file.hpp"
#include "startup/output_check.hpp"

namespace wai {

namespace fs = std::filesystem;

std::string run_name(const std::string& task, const std::string& scheme, uint64_t seed) {
    std::string name = scheme;
    std::replace(name.begin(), name.end(), ':', '-');
    return task + "_" + name + "_seed" + std::to_string(seed);
}

fs::path run_file(const fs::path& folder, const std::string& task, const std::string& scheme, uint64_t seed) {
    return folder / (run_name(task, scheme, seed) + ".txt");
}

std::string settings_line(const std::string& task, const std::string& scheme, uint64_t seed, const std::string& run_flags) {
    return "settings: train_position " + task + " " + scheme + " " + std::to_string(seed) +
           (run_flags.empty() ? "" : " " + run_flags);
}

std::string other_settings(const std::string& found, const std::string& expected) {
    // The run's own words (task, scheme, seed) are the first five of both; what follows is RUN_FLAGS.
    auto split = [](const std::string& line) {
        std::istringstream in(line);
        std::string head, word, rest;
        for (int i = 0; i < 5 && in >> word; ++i) head += word + " ";
        while (in >> word) rest += (rest.empty() ? "" : " ") + word;
        return std::make_pair(head, rest);
    };
    const auto [found_run, found_flags] = split(found);
    const auto [expected_run, expected_flags] = split(expected);
    if (found_run != expected_run) return "was made for another run ('" + found + "', not '" + expected + "')";
    if (found_flags == expected_flags)  // the same words: only the blanks between or after them differ
        return "has a settings line spaced otherwise than this run's ('" + found + "', not '" + expected + "')";
    return "was made with RUN_FLAGS '" + found_flags + "', not '" + expected_flags + "'";
}

std::string result_file_problem(const fs::path& path) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) return "is missing";
    if (!fs::is_regular_file(status)) return "is not a regular file";  // a FIFO would hang the read
    // Two lines of a few hundred bytes: a larger file is not read into memory (one grown by a stray
    // write, or a sparse file of gigabytes whose read could fail half-way and pass for a short file).
    if (const uintmax_t bytes = fs::file_size(path, error); error || bytes > max_result_bytes)
        return error ? "cannot be sized" : "is " + std::to_string(bytes) + " bytes, too large for a result (two short lines)";
    return "";
}

std::optional<RunFile> read_run_file(const fs::path& path) {
    if (!result_file_problem(path).empty()) return std::nullopt;
    std::ifstream in(path);
    RunFile file;
    std::string extra;
    if (!in || !std::getline(in, file.line) || !std::getline(in, file.settings) || std::getline(in, extra))
        return std::nullopt;
    if (file.settings.rfind("settings: ", 0) != 0) return std::nullopt;
    const std::optional<ResultLine> result = parse_result_line(file.line);
    if (!result) return std::nullopt;
    if (!impossible_figures(*result).empty()) return std::nullopt;  // an accuracy outside [0, 1], or out of step
    file.result = *result;
    return file;
}

namespace {

// A folder where a file of the experiment's belongs is the user's: refused, never removed with what it holds.
void refuse_folder(const fs::path& path) {
    throw std::runtime_error(path.string() + " is a folder where a file of the experiment belongs; move it away and run again");
}

// True when a live run holds `temporary` (experiment/atomic_run.sh keeps a lock on its temporary result
// while it runs): a run started from make experiment-jobs' list elsewhere, which the prune must leave alone.
bool held_by_a_live_run(const fs::path& temporary) {
    const int fd = open(temporary.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

}  // namespace

std::string weights_fault(const std::string& task, const std::string& scheme, uint64_t seed, const fs::path& weights) {
    std::map<std::string, std::string> metadata;
    try {
        metadata = read_weights_metadata(weights.string());
    } catch (const std::exception& e) {
        return "has weights beside it that are not a readable safetensors file (" + std::string(e.what()) + ")";
    }
    const auto named = [&](const std::string& key) {  // as a message quotes it: a long value cut to its first 60 characters
        const auto found = metadata.find(key);
        if (found == metadata.end()) return "(no " + key + ")";
        const std::string& value = found->second;
        return value.size() <= 80 ? value : value.substr(0, 60) + "... (" + std::to_string(value.size() - 60) + " more characters)";
    };
    const auto differs = [&](const std::string& key, const std::string& value) {
        return !metadata.count(key) || metadata.at(key) != value;
    };
    const bool has_seed = metadata.count("seed") > 0;
    if (differs("task", task) || differs("scheme", scheme) || (has_seed && differs("seed", std::to_string(seed))))
        return nul_shown("has weights beside it saved for another run (" + weights.filename().string() + " names " + named("task") + " " +
                         named("scheme") + (has_seed ? " seed " + named("seed") : "") + ", not " + task + " " + scheme +
                         " seed " + std::to_string(seed) + ")");
    return "";
}

void prune_result_files(const std::vector<fs::path>& expected, const std::function<std::string(size_t)>& check,
                        const fs::path& folder, const std::string& program) {
    // No folder yet is nothing to prune (a first make experiment); a file there, or in place of a folder
    // above it, is refused.
    for (fs::path above = folder; !above.empty(); above = above.parent_path()) {
        const fs::file_status there = fs::status(above);
        if (!fs::exists(there)) continue;
        if (!fs::is_directory(there))
            throw std::runtime_error(above.string() + " is not a folder: the prune takes the folder the runs' results are in");
        break;
    }
    // A result and its weights, and where the prune sets them aside (RUNS/replaced/NAME.txt, .safetensors).
    const auto weights_of = [](fs::path path) { return path.replace_extension(".safetensors"); };
    const auto aside = [](const fs::path& path) { return path.parent_path() / "replaced" / path.filename(); };
    const auto move = [&](const fs::path& from, const fs::path& to) {  // the weights go with it, or none do
        if (fs::exists(fs::symlink_status(weights_of(from)))) fs::rename(weights_of(from), weights_of(to));
        else fs::remove(weights_of(to));
        fs::rename(from, to);
    };
    for (size_t i = 0; i < expected.size(); ++i) {
        const fs::path& path = expected[i];
        if (!fs::exists(fs::symlink_status(path)) && fs::is_regular_file(fs::symlink_status(aside(path)))) {
            move(aside(path), path);
            if (check(i).empty()) {
                std::cout << program << ": " << path.string() << " put back from " << aside(path).parent_path().string()
                          << "/: it was made with these RUN_FLAGS\n";
                continue;
            }
            move(path, aside(path));
        }
        if (!fs::exists(path)) continue;
        if (fs::is_directory(fs::symlink_status(path))) refuse_folder(path);
        const std::string reason = check(i);
        if (reason.empty()) continue;
        if (reason.rfind("was made with RUN_FLAGS", 0) == 0) {
            fs::create_directories(aside(path).parent_path());
            if (fs::is_directory(fs::symlink_status(aside(path)))) refuse_folder(aside(path));
            std::cout << program << ": " << path.string() << " " << reason << "; it will be run again (kept in "
                      << aside(path).parent_path().string() << "/ until then, and put back if these flags come again)\n";
            move(path, aside(path));
        } else {
            // Its weights go with it: the run writes them again, and train_position --save refuses to
            // replace a file that is not a weights file (garbage there would fail every rerun).
            const fs::file_status weights = fs::symlink_status(weights_of(path));
            if (fs::is_directory(weights)) refuse_folder(weights_of(path));
            std::cout << program << ": " << path.string() << " " << reason << "; it will be run again"
                      << (fs::exists(weights) ? " (its weights, " + weights_of(path).filename().string() + ", removed with it)" : "")
                      << "\n";
            fs::remove(weights_of(path));
            fs::remove(path);
        }
    }
    // A run killed outright (SIGKILL, a power cut) leaves its temporary files behind: never a result.
    // A live run's are left alone: it holds a lock on its temporary result, named RUN.txt.tmp.XXXXXX,
    // and its weights' (RUN.safetensors.tmp.XXXXXX) belong to the same run. Found first, then removed.
    if (!fs::is_directory(folder)) return;
    std::vector<fs::path> temporary;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".txt.tmp.") == std::string::npos && name.find(".safetensors.tmp") == std::string::npos) continue;
        if (entry.is_directory()) refuse_folder(entry.path());
        temporary.push_back(entry.path());
    }
    const auto run_of = [](const fs::path& path) {  // the folder and the run's name, before ".txt" or ".safetensors"
        const std::string name = path.filename().string();
        const size_t txt = name.find(".txt.tmp."), weights = name.find(".safetensors.tmp");
        return (path.parent_path() / name.substr(0, std::min(txt, weights))).string();
    };
    std::vector<std::string> live;
    for (const fs::path& path : temporary)
        if (held_by_a_live_run(path)) live.push_back(run_of(path));
    for (const fs::path& path : temporary) {
        if (std::find(live.begin(), live.end(), run_of(path)) != live.end()) {
            std::cout << program << ": leaving " << path.string() << " alone: its run is still going\n";
            continue;
        }
        std::cout << program << ": removing " << path.string() << ", left by a run that was killed\n";
        fs::remove(path);
    }
}

namespace {

// A line as a message quotes it: past 80 bytes, its first 60; NUL written \x00 (an exception's
// message is a C string); one_line (startup/output_check.hpp) escapes the other control bytes.
std::string quoted_line(const std::string& line) {
    std::string text = line.size() <= 80 ? line : line.substr(0, 60) + "... (" + std::to_string(line.size() - 60) + " more bytes)";
    for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 4)) text.replace(at, 1, "\\x00");
    return "'" + text + "'";
}

// A regular file with at least one byte at `path`, opened; else nothing to judge (a link, a folder, a
// device are check_output_path's to refuse, an empty file may be replaced).
bool open_nonempty(const fs::path& path, std::ifstream& in) {
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(path, error))) return false;
    in.open(path, std::ios::binary);
    return in && in.peek() != std::ifstream::traits_type::eof();
}

// The next line of `in` into `line` (without its newline), reading at most `limit` bytes of it: a file
// of gigabytes with no newline is never read into memory. False at the end of the file; `too_long`
// when the line goes on past `limit`.
bool next_line(std::ifstream& in, std::string& line, size_t limit, bool& too_long) {
    line.clear();
    too_long = false;
    if (in.peek() == std::ifstream::traits_type::eof()) return false;
    for (int c; (c = in.get()) != std::ifstream::traits_type::eof() && c != '\n';) {
        if (line.size() == limit) {
            too_long = true;
            return true;
        }
        line.push_back(static_cast<char>(c));
    }
    return true;
}

constexpr size_t longest_line = 65536;  // far longer than any line a collector writes

}  // namespace

std::string not_a_result_table(const fs::path& path) {
    std::ifstream in;
    if (!open_nonempty(path, in)) return "";
    std::string line;
    bool too_long = false;
    for (size_t number = 1; next_line(in, line, longest_line, too_long); ++number) {
        if (too_long) return "its line " + std::to_string(number) + " is over " + std::to_string(longest_line) + " bytes long";
        if (!parse_result_line(line)) return "its line " + std::to_string(number) + " is not a result line: " + quoted_line(line);
    }
    return "";
}

std::string not_headed_by(const fs::path& path, const std::string& heading) {
    std::ifstream in;
    if (!open_nonempty(path, in)) return "";
    std::string line;
    bool too_long = false;
    next_line(in, line, heading.size() + 80, too_long);
    if (!too_long && line == heading) return "";
    return "its first line is " + quoted_line(line) + (too_long ? " (cut)" : "") + ", not " + quoted_line(heading);
}

void refuse_foreign_output(const fs::path& path, const std::string& what, const std::string& program, const std::string& holds) {
    if (holds.empty()) return;
    throw UsageError(what + " " + path.string() + ": a file is there that " + program + " did not write (" + holds + "); " +
                     program + " replaces only a file it wrote there, or an empty one, so nothing was written: give another "
                     "path, or move that file away first");
}

std::vector<uint64_t> parse_seed_list(const std::vector<std::string>& texts) {
    std::vector<uint64_t> seeds;
    for (const std::string& text : texts) {
        if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("a SEED must be a non-negative integer below 10^18, got '" + text + "'");
        if (text.size() > 1 && text[0] == '0')  // its runs' files are named by the number: seed00 would never be found
            throw std::invalid_argument("a SEED is written without leading zeros, got '" + text + "'");
        const uint64_t seed = static_cast<uint64_t>(parse_integer(text, "a SEED"));
        if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
            throw std::invalid_argument("seed " + text + " is given twice");
        seeds.push_back(seed);
    }
    if (seeds.empty()) throw std::invalid_argument("no seeds given");
    return seeds;
}

CollectorCommandLine parse_collector_command_line(int argc, char** argv) {
    CollectorCommandLine line;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg != "--help" && arg != "-h") continue;
        if (argc != 2) throw UsageError(arg + " stands alone, got it with other arguments");
        line.help = true;
        return line;
    }
    bool run_flags_seen = false, my_schemes_seen = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--prune") {
            if (line.prune) throw UsageError("--prune is given twice");
            if (i > 1) throw UsageError("--prune must come first");
            line.prune = true;
        } else if (arg == "--run-flags") {
            if (run_flags_seen) throw UsageError("--run-flags is given twice");
            if (!line.positional.empty())
                throw UsageError("--run-flags must come before the folder and the seeds (after --prune, if given)");
            if (i + 1 >= argc) throw UsageError("--run-flags needs a value (make's RUN_FLAGS, may be empty)");
            std::istringstream words(argv[++i]);  // the value may be empty and may start with "--"
            for (std::string word; words >> word;) line.run_flags += (line.run_flags.empty() ? "" : " ") + word;
            run_flags_seen = true;
        } else if (arg == "--my-schemes") {
            if (my_schemes_seen) throw UsageError("--my-schemes is given twice");
            my_schemes_seen = true;
            if (!line.positional.empty()) throw UsageError("--my-schemes must come before the folder and the seeds");
            if (i + 1 >= argc) throw UsageError("--my-schemes needs a value (make's MY_SCHEMES, may be empty)");
            std::istringstream words(argv[++i]);
            for (std::string word; words >> word;) {
                try {
                    parse_position_spec(word);  // a scheme train_position takes
                } catch (const std::invalid_argument& e) {
                    throw UsageError(std::string("--my-schemes: ") + e.what());
                }
                if (std::find(line.my_schemes.begin(), line.my_schemes.end(), word) != line.my_schemes.end())
                    throw UsageError("--my-schemes: '" + word + "' is given twice");
                line.my_schemes.push_back(word);
            }
        } else if (arg.empty()) {
            throw UsageError("argument " + std::to_string(i) + " is empty; every argument needs a value");
        } else if (arg.rfind("--", 0) == 0) {
            throw UsageError("unknown flag '" + arg + "'; the flags are --prune, --run-flags FLAGS, --my-schemes SCHEMES and --help");
        } else {
            line.positional.push_back(arg);
        }
    }
    return line;
}

std::vector<uint64_t> parse_seed_arguments(const std::vector<std::string>& positional, size_t first) {
    try {
        return parse_seed_list(std::vector<std::string>(positional.begin() + std::min(first, positional.size()),
                                                        positional.end()));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

void require_distinct_paths(const std::vector<std::pair<std::string, fs::path>>& named) {
    for (size_t i = 0; i < named.size(); ++i)
        for (size_t j = i + 1; j < named.size(); ++j) {
            std::error_code error;
            // Made absolute first: weakly_canonical leaves a relative path whose file does not exist
            // yet as it is, so "t.txt" and "./t.txt" would compare unequal.
            const fs::path a = fs::weakly_canonical(fs::absolute(named[i].second, error), error);
            const fs::path b = fs::weakly_canonical(fs::absolute(named[j].second, error), error);
            if (a == b)
                throw UsageError(named[i].first + " and " + named[j].first + " are the same file, " +
                                 named[i].second.string() + ": give each its own path");
        }
}

int run_collector(const std::string& program, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        std::cerr << program << ": " << one_line(e.what()) << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << program << ": " << one_line(e.what()) << "\n";
        return 1;
    }
}

}  // namespace wai
