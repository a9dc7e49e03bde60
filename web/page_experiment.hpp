// The chapter's experiment as the page runs it: which runs it is made of, and the finished runs'
// result lines judged as make experiment judges them (experiment/summary.hpp).
// Leaves out training the runs (web/page_training.hpp, one at a time in a Web Worker).
#pragma once

#include <string>

namespace page {

// {"tasks": [...], "schemes": [...], "lengths": [32, 64, 128], "steps": 2000}
std::string experiment_runs();

// The summary of the result lines `lines` for the seeds `seeds` ("0,1"), made with `steps` steps, or an error.
std::string experiment_summary(const std::string& lines, const std::string& seeds, int steps);

}  // namespace page
