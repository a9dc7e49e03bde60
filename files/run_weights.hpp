// A run of the experiment with weight files, as train_position's --load and --save make it: the
// weights read before training (in either layout, told by their names; the file's metadata must be
// this run's task, scheme and sizes), written after it with the run's settings as metadata.
// Leaves out the run itself (tasks/experiment.hpp) and the file format (files/weights_file.hpp).
#pragma once
#include <functional>
#include <string>

#include "files/weights_file.hpp"
#include "tasks/experiment.hpp"

namespace wai {

struct RunFiles {
    // load_path's weights replace the initial ones before training, and steps may then be 0: only
    // test them. save_path gets the weights after training, named in save_layout. A file in the
    // chapter's layout whose metadata does not name a task and scheme (PyTorch's own) loads as this
    // run's model, and load_notice is told so (to stderr if unset).
    std::string load_path, save_path;
    WeightsLayout save_layout = WeightsLayout::ours;
    std::function<void(const std::string&)> load_notice;
};

// validate(config), and what the files add: steps 0 only with a file to load; a --save target that
// can be written (files/atomic_file.hpp); the chapter's layout only for its schemes.
void validate(const RunConfig& config, const RunFiles& files);

// validate, make_model, load, train, save, test_model.
RunResult run_experiment(const RunConfig& config, const RunFiles& files, const ProgressFunction& progress = {});

}  // namespace wai
