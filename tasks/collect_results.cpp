// collect_results: turns the experiment's per-run result files into results/table.txt (the runs in
// the chapter's order) and results/summary.md (seed means beside the chapter's published means).
//   collect_results RUNS_DIR CHAPTER_TABLE TABLE SUMMARY SEEDS...   collect and write both files
//   collect_results --prune RUNS_DIR SEEDS...                       delete result files that are not
//                                                                   one valid line for their run, and
//                                                                   killed runs' temporary files
// The always-"no" baseline for seen is computed here from the same test sequences the runs used.
// Outputs are written to a temporary file and renamed, so they are whole or absent.
// Leaves out running anything: the Makefile runs train_position.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tasks/evaluate.hpp"
#include "tasks/openblas_startup.hpp"
#include "tasks/result_line.hpp"
#include "tasks/results_files.hpp"

using namespace wai;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> tasks = {"lag", "seen"};
const std::vector<std::string> schemes = {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"};
const char* const figure_names[5] = {"32", "64", "128", "128, past 32", "128, scaled"};

// One run of the experiment: its result file and what that file's line must name.
struct Run {
    fs::path path;
    std::string task, scheme;
    uint64_t seed;
};

std::vector<Run> every_run(const fs::path& dir, const std::vector<uint64_t>& seeds) {
    std::vector<Run> runs;
    for (const auto& task : tasks)
        for (const auto& scheme : schemes)
            for (uint64_t seed : seeds) runs.push_back({run_file(dir, task, scheme, seed), task, scheme, seed});
    return runs;
}

// The one valid result line in the run's file, or nullopt.
std::optional<ResultLine> read_run(const Run& run) {
    auto r = read_result_file(run.path);
    if (!r || r->task != run.task || r->scheme != run.scheme || r->seed != run.seed || r->lengths.size() != 3 ||
        !r->has_past_train)
        return std::nullopt;
    return r;
}

std::vector<double> figures(const ResultLine& r) { return {r.accuracy[0], r.accuracy[1], r.accuracy[2], r.past_train, r.scaled}; }

std::string fixed(double v, int decimals = 3) {
    char s[32];
    std::snprintf(s, sizeof s, "%.*f", decimals, v);
    return s;
}

std::string signed_fixed(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%+.3f", v);
    return s;
}

// The chapter's allowance for a figure: 0.05, or 0.08 for seen past the training length.
double tolerance(const std::string& task, int figure) { return task == "seen" && figure >= 1 ? 0.08 : 0.05; }

// seen alibi:0.0625's two modes in PyTorch, as (accuracy at 32, scaled accuracy at 128): 0 is the
// chapter's, 1 the other; -1 when a run is in neither.
int bimodal_mode(const std::vector<double>& figures) {
    const double modes[2][2] = {{0.99, 0.64}, {0.935, 0.85}};
    for (int m = 0; m < 2; ++m)
        if (std::abs(figures[0] - modes[m][0]) <= 0.05 && std::abs(figures[4] - modes[m][1]) <= 0.08) return m;
    return -1;
}

bool all_in_chapter_mode(const std::vector<std::vector<double>>& runs) {
    for (const auto& run : runs)
        if (bimodal_mode(run) != 0) return false;
    return true;
}

int prune(const fs::path& dir, const std::vector<uint64_t>& seeds) {
    const std::vector<Run> runs = every_run(dir, seeds);
    std::vector<fs::path> paths;
    for (const Run& run : runs) paths.push_back(run.path);
    prune_result_files(paths, [&](size_t i) { return read_run(runs[i]).has_value(); }, dir, "experiment");
    return 0;
}

int collect(const fs::path& dir, const std::string& chapter_path, const std::string& table_path,
            const std::string& summary_path, const std::vector<uint64_t>& seeds) {
    std::map<std::pair<std::string, std::string>, std::vector<std::vector<double>>> chapter;
    std::ifstream chapter_in(chapter_path);
    if (!chapter_in) throw std::runtime_error("cannot read the chapter's table " + chapter_path);
    for (std::string line; std::getline(chapter_in, line);)
        if (auto r = parse_result_line(line)) chapter[{r->task, r->scheme}].push_back(figures(*r));

    std::string table;
    std::vector<std::string> missing;
    std::map<std::pair<std::string, std::string>, std::vector<std::vector<double>>> ours;
    for (const Run& run : every_run(dir, seeds)) {
        auto r = read_run(run);
        if (!r) {
            missing.push_back(run.path.string());
            continue;
        }
        table += *read_single_line(run.path) + "\n";
        ours[{run.task, run.scheme}].push_back(figures(*r));
    }
    if (!missing.empty()) {
        std::cerr << "collect_results: " << missing.size() << " runs have no valid result, e.g. " << missing.front()
                  << "; run make experiment again\n";
        return 1;
    }

    std::ostringstream md;
    md << "# Results: seed means beside the chapter's\n\n"
       << "Seeds: ";
    for (uint64_t s : seeds) md << s << " ";
    md << "\n\nEach cell: our mean over the seeds (spread min..max) / the chapter's mean over its two seeds / the "
          "difference. A figure outside the allowance (0.05; 0.08 for seen at 64, 128, past 32 and scaled) is "
          "marked **!**.\n\n";
    int outside = 0;
    for (const auto& task : tasks) {
        md << "## " << task << "\n\n| scheme | ";
        for (const char* f : figure_names) md << f << " | ";
        md << "\n|---|---|---|---|---|---|\n";
        for (const auto& scheme : schemes) {
            md << "| " << scheme << " | ";
            const auto& runs = ours[{task, scheme}];
            const auto& published = chapter[{task, scheme}];
            for (int f = 0; f < 5; ++f) {
                double sum = 0, low = 1, high = 0, chapter_sum = 0;
                for (const auto& run : runs) sum += run[f], low = std::min(low, run[f]), high = std::max(high, run[f]);
                for (const auto& run : published) chapter_sum += run[f];
                const double mean = sum / runs.size(), chapter_mean = chapter_sum / published.size();
                const bool judged_by_modes = task == "seen" && scheme == "alibi:0.0625" && !all_in_chapter_mode(runs);
                const bool out = !judged_by_modes && std::abs(mean - chapter_mean) > tolerance(task, f) + 1e-9;
                outside += out;
                md << fixed(mean) << " (" << fixed(low) << ".." << fixed(high) << ") / " << fixed(chapter_mean) << " / "
                   << signed_fixed(mean - chapter_mean) << (out ? " **!**" : "") << " | ";
            }
            md << "\n";
        }
        md << "\n";
    }

    md << "seen alibi:0.0625 is bimodal across seeds when trained in PyTorch: about 0.99 at 32 and 0.64 scaled "
          "(the chapter's mode), or about 0.935 at 32 and 0.85 scaled. Each seed must land in one of the two "
          "(within 0.05 at 32, 0.08 scaled); if any lands in the second, the row is judged by modes, not by its mean.\n\n";
    const auto& bimodal = ours[{"seen", "alibi:0.0625"}];
    for (size_t i = 0; i < bimodal.size(); ++i) {
        const int mode = bimodal_mode(bimodal[i]);
        if (mode < 0) ++outside;
        md << "- seed " << seeds[i] << ": " << fixed(bimodal[i][0]) << " at 32, " << fixed(bimodal[i][4]) << " scaled: "
           << (mode == 0 ? "the chapter's mode" : mode == 1 ? "the second mode" : "**neither mode !**") << "\n";
    }
    md << "\n";

    // Always answering "no" on seen, over the same test sequences the runs were scored on.
    const Task seen = make_task("seen");
    double baseline[5] = {0, 0, 0, 0, 0};
    const int64_t lengths[3] = {32, 64, 128};
    for (uint64_t seed : seeds)
        for (int i = 0; i < 3; ++i) {
            const Batch batch = test_batch(seen, seed, lengths[i], 256);
            int64_t no = 0, scored = 0, no_past = 0, scored_past = 0;
            for (int64_t n = 0; n < batch.B * batch.T; ++n) {
                no += batch.targets[n] == 0, ++scored;
                if (n % batch.T >= 32) no_past += batch.targets[n] == 0, ++scored_past;
            }
            baseline[i] += static_cast<double>(no) / scored / seeds.size();
            if (lengths[i] == 128) {
                baseline[3] += static_cast<double>(no_past) / scored_past / seeds.size();
                baseline[4] += static_cast<double>(no) / scored / seeds.size();
            }
        }
    md << "Always answering \"no\" on seen, computed from the sampled test sets: ";
    for (int f = 0; f < 4; ++f) md << figure_names[f] << ": " << fixed(baseline[f]) << (f < 3 ? "; " : "");
    md << " (the chapter: 0.85, 0.73, 0.55, 0.45).\n\n"
       << "Figures outside the allowance: " << outside << " of " << tasks.size() * schemes.size() * 5 << ".\n";

    write_atomically(table_path, table);
    write_atomically(summary_path, md.str());
    std::cout << "experiment: wrote " << table_path << " and " << summary_path << " (" << outside
              << " figures outside the allowance)\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    prepare_process(argv);
    return run_collector("collect_results", [&] {
        if (argc >= 4 && std::string(argv[1]) == "--prune") return prune(argv[2], parse_seed_arguments(argc, argv, 3));
        if (argc >= 6) return collect(argv[1], argv[2], argv[3], argv[4], parse_seed_arguments(argc, argv, 5));
        std::cerr << "usage: collect_results RUNS_DIR CHAPTER_TABLE TABLE SUMMARY SEED... | --prune RUNS_DIR SEED...\n";
        return 2;
    });
}
