// A run's weight files, as train_position's --load and --save give them: the weights read before
// training (in either layout, told by their names; the file's metadata must be this run's task,
// scheme and sizes), written after it with the run's settings as metadata. Only the reading and
// writing: the run itself is tasks/experiment.hpp's run_experiment, which calls them as its hooks.
// Leaves out the file format (files/weights_file.hpp).
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
// can be written (files/atomic_file.hpp) and holds no other kind of file; the chapter's layout only
// for its schemes.
void check_files(const RunConfig& config, const RunFiles& files);

// run_experiment's hooks for these files: load before training, save after it (each only when a
// path is given). Call check_files first: the hooks check only what may change during the run.
RunHooks weights_hooks(const RunConfig& config, const RunFiles& files);

}  // namespace wai
