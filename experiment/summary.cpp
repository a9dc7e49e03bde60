// The experiment's runs judged against the chapter's table (see the header).
#include "experiment/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "tasks/experiment.hpp"
#include "tasks/task.hpp"

namespace wai {

const std::vector<std::string> experiment_tasks = {"lag", "seen"};
const std::vector<std::string> experiment_schemes = {"none",    "sinusoid",  "learned",     "rope",
                                                     "rope:1000000", "alibi:0.5", "alibi:0.0625"};
const std::vector<int64_t> experiment_lengths = {32, 64, 128};
const char* const figure_names[5] = {"32", "64", "128", "128, past 32", "128, scaled"};

std::vector<double> result_figures(const ResultLine& r) {
    return {r.accuracy[0], r.accuracy[1], r.accuracy[2], r.past_train, r.scaled};
}

bool is_experiment_run(const ResultLine& r, const std::string& task, const std::string& scheme, uint64_t seed) {
    return r.task == task && r.scheme == scheme && r.seed == seed && r.lengths == experiment_lengths && r.train_length == 32 &&
           r.has_past_train;
}

SeedFigures parse_chapter_table(const std::string& text, const std::string& where) {
    SeedFigures chapter;
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.empty()) continue;
        const auto r = parse_result_line(line);
        if (!r || r->lengths != experiment_lengths || !r->has_past_train ||
            std::find(experiment_tasks.begin(), experiment_tasks.end(), r->task) == experiment_tasks.end() ||
            std::find(experiment_schemes.begin(), experiment_schemes.end(), r->scheme) == experiment_schemes.end())
            throw std::runtime_error("the chapter's table " + where + ", line " + std::to_string(number) +
                                     ", is not a result line of the experiment at lengths 32 / 64 / 128: '" + line.substr(0, 80) + "'");
        if (const std::string impossible = impossible_figures(*r); !impossible.empty())
            throw std::runtime_error("the chapter's table " + where + ", line " + std::to_string(number) + ", has " + impossible);
        chapter[{r->task, r->scheme}].push_back(result_figures(*r));
    }
    for (const auto& task : experiment_tasks)
        for (const auto& scheme : experiment_schemes)
            if (const size_t lines = chapter[{task, scheme}].size(); lines != 2)
                throw std::runtime_error("the chapter's table " + where + " has " +
                                         (lines == 0 ? "no line" : lines == 1 ? "1 line" : std::to_string(lines) + " lines") + " for " +
                                         task + " " + scheme + "; it needs the chapter's two, seeds 0 and 1 (28 lines)");
    return chapter;
}

std::vector<double> always_no_figures(const std::vector<uint64_t>& seeds) {
    const Task seen = make_task("seen");
    std::vector<double> baseline(5, 0.0);
    for (uint64_t seed : seeds)
        for (int i = 0; i < 3; ++i) {
            const Batch batch = test_batch(seen, seed, experiment_lengths[i], 256);
            int64_t no = 0, scored = 0, no_past = 0, scored_past = 0;
            for (int64_t n = 0; n < batch.B * batch.T; ++n) {
                no += batch.targets[n] == 0, ++scored;
                if (n % batch.T >= 32) no_past += batch.targets[n] == 0, ++scored_past;
            }
            baseline[i] += static_cast<double>(no) / scored / seeds.size();
            if (experiment_lengths[i] == 128) {
                baseline[3] += static_cast<double>(no_past) / scored_past / seeds.size();
                baseline[4] += static_cast<double>(no) / scored / seeds.size();
            }
        }
    return baseline;
}

namespace {

std::string fixed(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3f", v);
    return s;
}

std::string signed_fixed(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%+.3f", v);
    return s;
}

// A task's table head in summary.md: a heading at `level` ("##"), then the scheme and five figure columns.
std::string table_head(const std::string& level, const std::string& task) {
    std::string head = level + " " + task + "\n\n| scheme | ";
    for (const char* f : figure_names) head += std::string(f) + " | ";
    return head + "\n|---|---|---|---|---|---|\n";
}

// Figure f over a scheme's runs (one per seed): the mean, the lowest and the highest.
SummaryCell over_seeds(const std::vector<std::vector<double>>& runs, int f) {
    SummaryCell cell;
    double sum = 0;
    cell.low = 1, cell.high = 0;
    for (const auto& run : runs) sum += run[f], cell.low = std::min(cell.low, run[f]), cell.high = std::max(cell.high, run[f]);
    cell.mean = sum / runs.size();
    cell.figure = f;
    return cell;
}
std::string spread(const SummaryCell& c) { return "(" + fixed(c.low) + ".." + fixed(c.high) + ")"; }

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

}  // namespace

const char* const summary_heading = "# Results: seed means beside the chapter's";

std::string picture_data_heading(const std::string& task) {
    return "# " + task + ": accuracy at each test length, mean over the seeds. Written by collect_results.";
}

ExperimentSummary summarize_experiment(const SeedFigures& ours, const SeedFigures& chapter, const std::vector<uint64_t>& seeds,
                                       const std::string& run_flags, const std::vector<std::string>& mine) {
    const auto runs_of = [&](const std::string& task, const std::string& scheme) -> const std::vector<std::vector<double>>& {
        const auto found = ours.find({task, scheme});
        if (found == ours.end() || found->second.size() != seeds.size())
            throw std::invalid_argument("the experiment's summary needs one run per seed of " + task + " " + scheme);
        return found->second;
    };
    ExperimentSummary summary;
    std::ostringstream md;
    md << summary_heading << "\n\nSeeds: ";
    for (uint64_t s : seeds) md << s << " ";
    md << "\n\nEach run: train_position TASK SCHEME SEED"
       << (run_flags.empty() ? " (the chapter's settings)" : " " + run_flags + " (RUN_FLAGS: not the chapter's settings)");
    md << "\n\nEach cell: our mean over the seeds (spread min..max) / the chapter's mean over its two seeds / the "
          "difference. A figure outside the allowance (0.05; 0.08 for seen at 64, 128, past 32 and scaled) is "
          "marked **!**.\n\n";
    for (const auto& task : experiment_tasks) {
        md << table_head("##", task);
        for (const auto& scheme : experiment_schemes) {
            md << "| " << scheme << " | ";
            const auto& runs = runs_of(task, scheme);
            const auto& published = chapter.at({task, scheme});
            for (int f = 0; f < 5; ++f) {
                SummaryCell cell = over_seeds(runs, f);
                cell.task = task, cell.scheme = scheme;
                double chapter_sum = 0;
                for (const auto& run : published) chapter_sum += run[f];
                cell.chapter = chapter_sum / published.size();
                const bool judged_by_modes = task == "seen" && scheme == "alibi:0.0625" && !all_in_chapter_mode(runs);
                cell.outside = !judged_by_modes && std::abs(cell.mean - cell.chapter) > tolerance(task, f) + 1e-9;
                summary.outside += cell.outside;
                md << fixed(cell.mean) << " " << spread(cell) << " / " << fixed(cell.chapter) << " / "
                   << signed_fixed(cell.mean - cell.chapter) << (cell.outside ? " **!**" : "") << " | ";
                summary.cells.push_back(cell);
            }
            md << "\n";
        }
        md << "\n";
    }

    md << "seen alibi:0.0625 is bimodal across seeds when trained in PyTorch: about 0.99 at 32 and 0.64 scaled "
          "(the chapter's mode), or about 0.935 at 32 and 0.85 scaled. Each seed must land in one of the two "
          "(within 0.05 at 32, 0.08 scaled); if any lands in the second, the row is judged by modes, not by its mean.\n\n";
    const auto& bimodal = runs_of("seen", "alibi:0.0625");
    int in_mode[3] = {0, 0, 0};  // the chapter's, the second, neither
    for (size_t i = 0; i < bimodal.size(); ++i) {
        const int mode = bimodal_mode(bimodal[i]);
        if (mode < 0) ++summary.outside;
        ++in_mode[mode < 0 ? 2 : mode];
        md << "- seed " << seeds[i] << ": " << fixed(bimodal[i][0]) << " at 32, " << fixed(bimodal[i][4]) << " scaled: "
           << (mode == 0 ? "the chapter's mode" : mode == 1 ? "the second mode" : "**neither mode !**") << "\n";
    }
    md << "\nOf " << bimodal.size() << " seeds, " << in_mode[0] << " in the chapter's mode, " << in_mode[1]
       << " in the second, " << in_mode[2] << " in neither.\n\n";
    md << chapter_claims_section(ours, seeds) << "\n";
    if (!mine.empty()) {  // the learner's own schemes: our figures only, the chapter has none
        md << "## Your schemes (MY_SCHEMES)\n\nEach cell: the mean over the seeds (spread min..max); the chapter's "
              "rows above are the comparison.\n\n";
        for (const auto& task : experiment_tasks) {
            md << table_head("###", task);
            for (const auto& scheme : mine) {
                md << "| " << scheme << " | ";
                for (int f = 0; f < 5; ++f) {
                    const SummaryCell own = over_seeds(runs_of(task, scheme), f);
                    md << fixed(own.mean) << " " << spread(own) << " | ";
                }
                md << "\n";
            }
            md << "\n";
        }
    }

    const std::vector<double> baseline = always_no_figures(seeds);
    std::copy(baseline.begin(), baseline.end(), summary.always_no);
    md << "Always answering \"no\" on seen, computed from the sampled test sets: ";
    for (int f = 0; f < 4; ++f) md << figure_names[f] << ": " << fixed(baseline[f]) << (f < 3 ? "; " : "");
    md << " (the chapter: 0.85, 0.73, 0.55, 0.45).\n\n"
       << "Figures outside the allowance: " << summary.outside << " of "
       << experiment_tasks.size() * experiment_schemes.size() * 5 << ".\n";
    summary.markdown = md.str();

    // The picture's data (plots/experiment.gp): the seed mean at each length, one column a scheme.
    for (const auto& task : experiment_tasks) {
        std::ostringstream data;
        data << picture_data_heading(task) << "\nlength";
        for (const auto& scheme : experiment_schemes) data << " " << scheme;
        data << (task == "seen" ? " always-no" : " chance") << "\n";
        for (size_t i = 0; i < experiment_lengths.size(); ++i) {
            data << experiment_lengths[i];
            for (const auto& scheme : experiment_schemes) {
                double sum = 0;
                for (const auto& run : runs_of(task, scheme)) sum += run[i];
                data << " " << fixed(sum / seeds.size());
            }
            data << " " << (task == "seen" ? fixed(baseline[i]) : fixed(1.0 / 16.0)) << "\n";
        }
        summary.picture_data[task] = data.str();
    }
    return summary;
}

}  // namespace wai
