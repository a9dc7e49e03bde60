// collect_results: turns the experiment's per-run result files into results/table.txt (the runs in
// the chapter's order), results/summary.md (seed means beside the chapter's published means) and,
// for the picture, the seed means per length in results/data/{lag,seen}.dat.
//   collect_results [--run-flags FLAGS] [--my-schemes SCHEMES] RUNS_DIR CHAPTER_TABLE TABLE SUMMARY SEEDS...
//       collect and write; every run must have been made with FLAGS (make's RUN_FLAGS); SCHEMES (make's
//       MY_SCHEMES, e.g. "mine") are run too and reported after the chapter's table, on their own
//   collect_results --prune [--run-flags FLAGS] [--my-schemes SCHEMES] RUNS_DIR SEEDS...
//       delete result files that are not a valid result for their run or were made with other
//       settings, and killed runs' temporary files
// A result file is the run's line and the settings it was made with (experiment/results_files.hpp);
// the run's weights beside it must be a safetensors file whose header names that run (only the header
// is read), or the run is not finished: the prune deletes both, and make runs it again.
// The always-"no" baseline for seen is computed here from the same test sequences the runs used.
// Outputs are written to temporary files and then renamed, all together: each is whole or absent, and
// a failed write leaves every earlier output as it was. A file already at an output's path is
// replaced only when it is one collect_results wrote (or empty), never anyone's.
// Leaves out running anything: the Makefile runs train_position.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "experiment/summary.hpp"
#include "tasks/evaluate.hpp"
#include "startup/openblas_startup.hpp"
#include "tasks/result_line.hpp"
#include "experiment/results_files.hpp"
#include "files/atomic_file.hpp"
#include "files/weights_file.hpp"

using namespace wai;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& tasks = experiment_tasks;
const std::vector<std::string>& schemes = experiment_schemes;

// One run of the experiment: its result file and what that file's line must name.
struct Run {
    fs::path path;
    std::string task, scheme;
    uint64_t seed;
};

// Every run: per task, the chapter's schemes, then the learner's own (make's MY_SCHEMES), each seed.
std::vector<Run> every_run(const fs::path& dir, const std::vector<uint64_t>& seeds, const std::vector<std::string>& mine) {
    for (const auto& scheme : mine)
        if (std::find(schemes.begin(), schemes.end(), scheme) != schemes.end())
            throw UsageError("--my-schemes: '" + scheme + "' is one of the chapter's schemes, which the experiment runs anyway");
    std::vector<Run> runs;
    for (const auto& task : tasks) {
        for (const auto& scheme : schemes)
            for (uint64_t seed : seeds) runs.push_back({run_file(dir, task, scheme, seed), task, scheme, seed});
        for (const auto& scheme : mine)
            for (uint64_t seed : seeds) runs.push_back({run_file(dir, task, scheme, seed), task, scheme, seed});
    }
    return runs;
}

// The run's file when it is a valid result for this run (its task, scheme, seed, the table's three
// lengths), or nullopt.
std::optional<RunFile> read_run(const Run& run) {
    auto f = read_run_file(run.path);
    if (!f) return std::nullopt;
    if (!is_experiment_run(f->result, run.task, run.scheme, run.seed)) return std::nullopt;
    return f;
}

// Why the run's file cannot be used by a run with these flags, or "" when it can.
std::string fault(const Run& run, const std::string& run_flags) {
    if (const std::string problem = result_file_problem(run.path); !problem.empty()) return problem;
    const auto f = read_run(run);
    if (!f) return "is not a valid result for its run";
    const std::string expected = settings_line(run.task, run.scheme, run.seed, run_flags);
    if (f->settings != expected) return other_settings(f->settings, expected);
    fs::path weights = run.path;
    if (!fs::is_regular_file(weights.replace_extension(".safetensors")))
        return "has no weights beside it (" + weights.filename().string() + ")";
    return weights_fault(run.task, run.scheme, run.seed, weights);
}

// The chapter's table (experiment/chapter_table.txt), read as experiment/summary.hpp's
// parse_chapter_table reads its text.
SeedFigures read_chapter_table(const std::string& path) {
    // A regular file of a few kilobytes: a FIFO would hang the read, and a device such as /dev/zero
    // would be read into memory without end.
    std::error_code error;
    if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
        throw std::runtime_error("the chapter's table " + path + " is not a regular file (experiment/chapter_table.txt is the one)");
    if (std::filesystem::exists(path, error) && std::filesystem::file_size(path, error) > 1048576)
        throw std::runtime_error("the chapter's table " + path + " is over 1 MiB, far larger than a table of 14 lines (experiment/chapter_table.txt is the one)");
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the chapter's table " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return parse_chapter_table(text.str(), path);
}

int prune(const fs::path& dir, const std::string& run_flags, const std::vector<uint64_t>& seeds,
          const std::vector<std::string>& mine) {
    const std::vector<Run> runs = every_run(dir, seeds, mine);
    std::vector<fs::path> paths;
    for (const Run& run : runs) paths.push_back(run.path);
    prune_result_files(paths, [&](size_t i) { return fault(runs[i], run_flags); }, dir, "experiment");
    return 0;
}

int collect(const fs::path& dir, const std::string& run_flags, const std::string& chapter_path,
            const std::string& table_path, const std::string& summary_path, const std::vector<uint64_t>& seeds,
            const std::vector<std::string>& mine) {
    // Every output checked before anything is read or written: no output is an input (the chapter's
    // table, a run's file) or another output, each can be written whole where it is named, and the
    // picture's data goes to a data/ folder beside TABLE, made there if missing but never above it.
    const fs::path data_dir = fs::path(table_path).parent_path().empty() ? fs::path("data") : fs::path(table_path).parent_path() / "data";
    const std::vector<Run> runs = every_run(dir, seeds, mine);
    std::vector<std::pair<std::string, fs::path>> named = {
        {"TABLE", table_path}, {"SUMMARY", summary_path}, {"CHAPTER_TABLE", chapter_path},
        {"the picture's data", data_dir / "lag.dat"}, {"the picture's data", data_dir / "seen.dat"}};
    for (const Run& run : runs) {
        named.push_back({"a run's result", run.path});
        named.push_back({"a run's weights", fs::path(run.path).replace_extension(".safetensors")});  // make plots reads them
    }
    require_distinct_paths(named);
    try {
        check_output_path(table_path, "TABLE");
        check_output_path(summary_path, "SUMMARY");
        if (fs::exists(data_dir)) {
            check_output_path((data_dir / "lag.dat").string(), "the picture's data");
            check_output_path((data_dir / "seen.dat").string(), "the picture's data");
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // A file already at an output is replaced only when collect_results wrote it (make experiment run
    // again over its own results): TABLE all result lines, SUMMARY and the data under their headings.
    refuse_foreign_output(table_path, "TABLE", "collect_results", not_a_result_table(table_path));
    refuse_foreign_output(summary_path, "SUMMARY", "collect_results", not_headed_by(summary_path, summary_heading));
    for (const auto& task : tasks) {
        const fs::path data = data_dir / (task + ".dat");
        refuse_foreign_output(data, "the picture's data", "collect_results", not_headed_by(data, picture_data_heading(task)));
    }
    const auto chapter = read_chapter_table(chapter_path);

    std::string table;
    std::vector<std::string> missing;
    SeedFigures ours;
    for (const Run& run : runs) {
        if (const std::string why = fault(run, run_flags); !why.empty()) {
            missing.push_back(run.path.string() + " " + why);
            continue;
        }
        const RunFile f = *read_run(run);
        table += f.line + "\n";
        ours[{run.task, run.scheme}].push_back(result_figures(f.result));
    }
    if (!missing.empty()) {
        std::cerr << "collect_results: " << missing.size() << " of " << runs.size()
                  << (runs.size() == 1 ? " run has" : " runs have") << " no valid result made with these settings, e.g. " << missing.front()
                  << "; run make experiment again\n";
        return 1;
    }

    const ExperimentSummary summary = summarize_experiment(ours, chapter, seeds, run_flags, mine);
    fs::create_directory(data_dir);  // its folder was checked above
    // As one output: a failure (a full disk) leaves every file as it was, never a new table beside an old summary.
    std::vector<std::pair<std::string, std::string_view>> outputs;
    for (const auto& task : tasks) outputs.emplace_back((data_dir / (task + ".dat")).string(), summary.picture_data.at(task));
    outputs.emplace_back(table_path, table);
    outputs.emplace_back(summary_path, summary.markdown);
    write_files_atomically(outputs);
    std::cout << "experiment: wrote " << table_path << ", " << summary_path << " and " << (data_dir / "{lag,seen}.dat").string()
              << " (" << summary.outside << " figures outside the allowance)\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    prepare_process(argv);
    const char* const usage = "usage: collect_results [--run-flags FLAGS] [--my-schemes SCHEMES] RUNS_DIR CHAPTER_TABLE TABLE "
                              "SUMMARY SEED... | --prune [--run-flags FLAGS] [--my-schemes SCHEMES] RUNS_DIR SEED...\n";
    return run_collector("collect_results", [&] {
        const CollectorCommandLine line = parse_collector_command_line(argc, argv);
        if (line.help) {
            std::cout << usage << "make experiment runs it (the prune before the runs, the collection after them).\n";
            return 0;
        }
        const std::vector<std::string>& args = line.positional;
        if (line.prune && args.size() >= 2)
            return prune(args[0], line.run_flags, parse_seed_arguments(args, 1), line.my_schemes);
        if (!line.prune && args.size() >= 5)
            return collect(args[0], line.run_flags, args[1], args[2], args[3], parse_seed_arguments(args, 4), line.my_schemes);
        std::cerr << usage;
        return 2;
    });
}
