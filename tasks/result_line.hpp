// The one-line result of a run, as train_position prints it and the experiment collects it:
//   lag  rope         seed 0: length 32 / 64 / 128: 1.000 / 1.000 / 1.000; at 128, positions past 32: 1.000; scores x log128/log32: 1.000
// A run tested with a context extension names it after the scheme ("rope+yarn:4").
// format_result_line writes it; parse_result_line reads one back (and refuses anything else, so a
// truncated or corrupted result file is caught). Leaves out every other output.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tasks/experiment.hpp"

namespace wai {

struct ResultLine {
    std::string task, scheme;
    uint64_t seed = 0;
    std::vector<int64_t> lengths;
    std::vector<double> accuracy;  // one per length
    int64_t train_length = 0;
    double past_train = 0, scaled = 0;
    bool has_past_train = true;  // false for "n/a": no test length went past the training length
};

std::string format_result_line(const RunConfig& config, const RunResult& result);
// nullopt unless `line` is a complete result line in exactly the format above.
std::optional<ResultLine> parse_result_line(const std::string& line);

// Why a result line's figures cannot be true, or "" when they can: an accuracy outside [0, 1] (NaN
// too), or the accuracy at the longest length L past the training length T out of step with the
// accuracy at L over every position, of which those L - T positions are part: past x (L - T) can be
// at most whole x L, and whole at most 1 - (1 - past) x (L - T) / L (each within the rounding of
// three decimals). The collectors refuse such a line as they refuse a corrupt one.
std::string impossible_figures(const ResultLine& r);

}  // namespace wai
