// The experiment's runs judged against the chapter's table ("Positional Information: Absolute,
// Relative, RoPE", the blog post's section "A test: two tasks, four times the length"): which runs
// make the experiment, the chapter's table read, and the summary: each figure's seed mean beside the
// chapter's, marked when outside the allowance, seen alibi:0.0625's two modes, the claims over the
// seeds, the always-"no" baseline and the picture's data. The same for results/summary.md
// (programs/collect_results.cpp) and for the page's experiment (web/page_api.cpp).
// Leaves out finding, reading and writing files (experiment/results_files.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "experiment/chapter_claims.hpp"
#include "tasks/result_line.hpp"

namespace wai {

// The experiment: per task, each of the chapter's schemes, each seed; tested at 32, 64, 128.
extern const std::vector<std::string> experiment_tasks;    // lag, seen
extern const std::vector<std::string> experiment_schemes;  // none, sinusoid, ..., alibi:0.0625
extern const std::vector<int64_t> experiment_lengths;      // 32, 64, 128
extern const char* const figure_names[5];                  // "32", ..., "128, scaled"

// A line's five figures: accuracy at 32, 64, 128, at 128 past 32, and at 128 scaled.
std::vector<double> result_figures(const ResultLine& r);
// Whether a result line is one of the experiment's runs for (task, scheme, seed): those names, the
// lengths 32 / 64 / 128, trained at 32.
bool is_experiment_run(const ResultLine& r, const std::string& task, const std::string& scheme, uint64_t seed);

// The first line of results/summary.md, and of the picture's data for a task (results/data/TASK.dat):
// how collect_results knows a file it wrote, which it may replace.
extern const char* const summary_heading;  // "# Results: seed means beside the chapter's"
std::string picture_data_heading(const std::string& task);

// The chapter's table as text (experiment/chapter_table.txt): each line a result line at the
// experiment's lengths, each (task, scheme) there twice (seeds 0 and 1). Throws std::runtime_error
// naming `where` and the first fault (an empty or cut table is no table).
SeedFigures parse_chapter_table(const std::string& text, const std::string& where);

// Always answering "no" on seen, over the test sequences the runs of these seeds are scored on: the
// five figures, each the mean over the seeds (the baseline a seen accuracy must beat).
std::vector<double> always_no_figures(const std::vector<uint64_t>& seeds);

// One cell of the summary: a figure's mean over our seeds beside the chapter's.
struct SummaryCell {
    std::string task, scheme;
    int figure = 0;  // 0..4, as figure_names
    double mean = 0, low = 0, high = 0, chapter = 0;
    bool outside = false;  // |mean - chapter| above the allowance (0.05; 0.08 for seen past 32)
};

struct ExperimentSummary {
    std::vector<SummaryCell> cells;         // per task, per scheme, five figures (the chapter's schemes)
    int outside = 0;                        // figures outside the allowance, seen alibi:0.0625's modes counted
    double always_no[5] = {0, 0, 0, 0, 0};  // always answering "no" on seen, on the same test sets
    std::string markdown;                   // results/summary.md
    std::map<std::string, std::string> picture_data;  // per task, the seed means per length (plots/experiment.gp)
};

// `ours` holds every run of the experiment (per (task, scheme), one figure row per seed, in seed
// order), the chapter's schemes and any of `mine` (the learner's own, MY_SCHEMES); run_flags are
// the flags every run was made with ("" for the chapter's settings).
ExperimentSummary summarize_experiment(const SeedFigures& ours, const SeedFigures& chapter, const std::vector<uint64_t>& seeds,
                                       const std::string& run_flags, const std::vector<std::string>& mine);

}  // namespace wai
