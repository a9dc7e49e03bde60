// The chapter's experiment as the page runs it (web/page_experiment.hpp).
#include "web/page_experiment.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "experiment/results_files.hpp"
#include "experiment/summary.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "web/page_json.hpp"

namespace page {

// {"tasks": [...], "schemes": [...], "lengths": [32, 64, 128], "steps": 2000}
std::string experiment_runs() {
    return json{{"tasks", wai::experiment_tasks},
                {"schemes", wai::experiment_schemes},
                {"lengths", wai::experiment_lengths},
                {"steps", wai::RunConfig{}.steps}}
        .dump();
}

// lines: one result line per run (any order, blank lines skipped), every (task, scheme) of the
// experiment for each seed of `seeds` ("0,1"), all made with `steps` steps. Answers {"lines": [the
// lines in results/table.txt's order], "cells": [{task, scheme, figure, mean, low, high, chapter,
// outside}], "figure_names", "outside", "judged", "always_no": [five], "markdown": summary.md's text}.
std::string experiment_summary(const std::string& lines, const std::string& seeds_text, int steps) {
    try {
        std::vector<std::string> seed_words;
        std::stringstream seeds_in(seeds_text);
        for (std::string word; std::getline(seeds_in, word, ',');) seed_words.push_back(word);
        const std::vector<uint64_t> seeds = wai::parse_seed_list(seed_words);
        std::map<std::tuple<std::string, std::string, uint64_t>, std::string> found;
        std::stringstream in(lines);
        for (std::string line; std::getline(in, line);) {
            if (line.empty()) continue;
            const auto r = wai::parse_result_line(line);
            if (!r) return error_text("not a result line: '" + line.substr(0, 80) + "'");
            found[{r->task, r->scheme, r->seed}] = line;
        }
        wai::SeedFigures ours;
        json ordered = json::array();
        for (const auto& task : wai::experiment_tasks)
            for (const auto& scheme : wai::experiment_schemes)
                for (uint64_t seed : seeds) {
                    const auto line = found.find({task, scheme, seed});
                    if (line == found.end())
                        return error_text("no result line for " + task + " " + scheme + " seed " + std::to_string(seed));
                    const wai::ResultLine r = *wai::parse_result_line(line->second);
                    if (!wai::is_experiment_run(r, task, scheme, seed))
                        return error_text("the line for " + task + " " + scheme + " seed " + std::to_string(seed) +
                                          " is not tested at 32, 64 and 128 after training at 32");
                    ours[{task, scheme}].push_back(wai::result_figures(r));
                    ordered.push_back(line->second);
                }
        std::ifstream table_file(chapter_table_path);
        std::ostringstream table;
        table << table_file.rdbuf();
        const wai::SeedFigures chapter = wai::parse_chapter_table(table.str(), chapter_table_path);
        const std::string run_flags = steps == wai::RunConfig{}.steps ? "" : "--steps " + std::to_string(steps);
        const wai::ExperimentSummary summary = wai::summarize_experiment(ours, chapter, seeds, run_flags, {});
        json cells = json::array();
        for (const wai::SummaryCell& c : summary.cells)
            cells.push_back({{"task", c.task}, {"scheme", c.scheme}, {"figure", c.figure}, {"mean", c.mean}, {"low", c.low},
                             {"high", c.high}, {"chapter", c.chapter}, {"outside", c.outside}});
        return json{{"lines", ordered},
                    {"cells", cells},
                    {"figure_names", std::vector<std::string>(wai::figure_names, wai::figure_names + 5)},
                    {"outside", summary.outside},
                    {"judged", summary.cells.size()},
                    {"always_no", std::vector<double>(summary.always_no, summary.always_no + 5)},
                    {"markdown", summary.markdown}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

}  // namespace page
