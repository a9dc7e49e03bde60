// Result files for the collectors: names, one-line reads, pruning, atomic writes, seeds, exit codes.
// Leaves out locking: make runs one collector at a time, after every run has finished.
#include "tasks/results_files.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>

#include "positional/number_text.hpp"
#include "tasks/atomic_file.hpp"
#include "tasks/output_check.hpp"

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

std::optional<std::string> read_single_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line, extra;
    if (!in || !std::getline(in, line) || std::getline(in, extra)) return std::nullopt;
    return line;
}

std::optional<ResultLine> read_result_file(const fs::path& path) {
    const std::optional<std::string> line = read_single_line(path);
    if (!line) return std::nullopt;
    return parse_result_line(*line);
}

void prune_result_files(const std::vector<fs::path>& expected, const std::function<bool(size_t)>& is_valid,
                        const fs::path& folder, const std::string& program) {
    for (size_t i = 0; i < expected.size(); ++i)
        if (fs::exists(expected[i]) && !is_valid(i)) {
            std::cout << program << ": " << expected[i].string() << " is not a valid result line; it will be run again\n";
            fs::remove(expected[i]);
        }
    // A run killed outright (SIGKILL, a power cut) leaves its temporary file behind: never a result.
    if (fs::is_directory(folder))
        for (const auto& entry : fs::recursive_directory_iterator(folder))
            if (entry.path().filename().string().find(".txt.tmp.") != std::string::npos) {
                std::cout << program << ": removing " << entry.path().string() << ", left by a run that was killed\n";
                fs::remove(entry.path());
            }
}

void write_atomically(const fs::path& path, const std::string& text) { write_file_atomically(path.string(), text); }

std::vector<uint64_t> parse_seed_list(const std::vector<std::string>& texts) {
    std::vector<uint64_t> seeds;
    for (const std::string& text : texts) {
        if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("a SEED must be a non-negative integer below 10^18, got '" + text + "'");
        const uint64_t seed = static_cast<uint64_t>(parse_integer(text, "a SEED"));
        if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
            throw std::invalid_argument("seed " + text + " is given twice");
        seeds.push_back(seed);
    }
    if (seeds.empty()) throw std::invalid_argument("no seeds given");
    return seeds;
}

std::vector<uint64_t> parse_seed_arguments(int argc, char** argv, int first) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.empty()) throw UsageError("argument " + std::to_string(i) + " is empty; every argument needs a value");
        if (arg == "--prune" && i > 1)
            throw UsageError(std::string(argv[1]) == "--prune" ? "--prune is given twice" : "--prune must come first");
        if (arg.rfind("--", 0) == 0 && arg != "--prune") throw UsageError("unknown flag '" + arg + "'; the only one is --prune");
    }
    try {
        return parse_seed_list(std::vector<std::string>(argv + first, argv + argc));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
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
