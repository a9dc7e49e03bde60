// Weight files around a run: what a saved file records, the checks on loading it, and the run
// between loading and saving. Leaves out the training and tests (tasks/experiment.cpp).
#include "files/run_weights.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "files/atomic_file.hpp"
#include "positional/spec.hpp"

namespace wai {

namespace {

const char* const saved_by = "whereami train_position";  // a saved file's "made_by"

// Digits alone, as every size and task parameter is recorded ("2", "64").
bool looks_like_whole_number(const std::string& text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// What a saved file was trained for ("steps": this run's, not counting a loaded file's), and the sizes
// a reader needs to build its model again (make plots' attention_maps does). On loading, the task,
// scheme and heads must be this run's: a model saved with rope has the same parameters as one
// without, and one saved with 2 heads the same shapes as with 1; either would load without complaint.
std::map<std::string, std::string> saved_for(const RunConfig& c) {
    const Task task = configured_task(c);
    std::map<std::string, std::string> saved{
        {"task", c.task},          {"scheme", c.scheme},
        {"seed", std::to_string(c.seed)},
        {"steps", std::to_string(c.steps)},
        {"dim", std::to_string(c.dim)},
        {"layers", std::to_string(c.layers)},
        {"heads", std::to_string(c.heads)},
        {"mlp", std::to_string(c.mlp_hidden)},
        {"vocab", std::to_string(task.vocab)},
        {"train-len", std::to_string(c.train_length)},
        {"made_by", saved_by}};
    if (task.kind == Task::Kind::lag) saved["lag"] = std::to_string(c.lag);
    return saved;
}

// A value from a file's metadata as a message quotes it: past 80 characters, its first 60 and how many
// more there are (a value of 100,000 characters made a line of 100,000).
std::string shortened(const std::string& value) {
    if (value.size() <= 80) return value;
    return value.substr(0, 60) + "... (" + std::to_string(value.size() - 60) + " more characters)";
}

// "" when no regular file is at `path` or it is a weights file (safetensors, as read_weights_file reads
// it); otherwise what is wrong with it. A link, a device or a folder there is check_output_path's to
// refuse. The first bytes are looked at before the file is read whole, so a large file of another kind
// is told at once.
std::string not_a_weights_file(const std::string& path) {
    struct stat about {};
    if (lstat(path.c_str(), &about) != 0 || !S_ISREG(about.st_mode)) return "";
    const uint64_t size = static_cast<uint64_t>(about.st_size);  // 0 for a file of /proc or /sys, whatever it holds
    std::ifstream file(path, std::ios::binary);
    if (!file.is_open()) return "it cannot be read";
    unsigned char head[9] = {};
    if (size < 9 || !file.read(reinterpret_cast<char*>(head), 9))
        return "it is " + std::to_string(size) + " bytes, too short for a safetensors header";
    uint64_t header = 0;
    for (int i = 7; i >= 0; --i) header = header << 8 | head[i];
    if (header > max_header_bytes || header + 8 > size || head[8] != '{')
        return "its first bytes are not a safetensors header";
    try {
        read_weights_file(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// Reads f.load_path into model. Its metadata must name this run's task and scheme; a file that names
// neither loads only in the chapter's PyTorch layout, which PyTorch writes without them.
void load_run_weights(const RunConfig& c, const RunFiles& f, Transformer& model) {
    const WeightsFile file = read_weights_file(f.load_path);
    const std::string fault = "weights file '" + f.load_path + "': ";
    const auto task = file.metadata.find("task"), scheme = file.metadata.find("scheme");
    const bool has_task = task != file.metadata.end(), has_scheme = scheme != file.metadata.end();
    if ((has_task && task->second != c.task) || (has_scheme && scheme->second != c.scheme))
        throw std::runtime_error(nul_shown(fault + "saved as " + (has_task ? shortened(task->second) : "(no task)") + " " +
                                           (has_scheme ? shortened(scheme->second) : "(no scheme)") + "; this run is " + c.task +
                                           " " + c.scheme + "; load it into a run of the task and scheme it was saved as"));
    // Every size and task parameter the file records must be this run's. The tensors' shapes hold most
    // sizes, but not the number of heads (a file saved with other heads would load and split its
    // attention another way, silently), the lag or the training length (the task and the scaled test
    // would be another's: a garbage result, never refused); the others are named here too, with both
    // values, rather than as a tensor's shape.
    const Task run_task = configured_task(c);
    const auto made_by = file.metadata.find("made_by");
    const bool written_by_train_position = made_by != file.metadata.end() && made_by->second == saved_by;
    const std::pair<const char*, std::string> run_values[] = {
        {"heads", std::to_string(c.heads)},          {"dim", std::to_string(c.dim)},
        {"layers", std::to_string(c.layers)},        {"mlp", std::to_string(c.mlp_hidden)},
        {"vocab", std::to_string(run_task.vocab)},   {"train-len", std::to_string(c.train_length)},
        {"lag", run_task.kind == Task::Kind::lag ? std::to_string(c.lag) : ""}};
    for (const auto& [key, value] : run_values) {
        if (value.empty()) continue;
        const auto saved = file.metadata.find(key);
        // A file train_position --save wrote (its "made_by" says so) records every one of these: one
        // missing (the file edited since) is named, not passed over. Other files (PyTorch's, which
        // record the task and scheme alone) are held to what they record.
        if (saved == file.metadata.end() && written_by_train_position)
            throw std::runtime_error(fault + "its __metadata__ names the task and scheme but not the " + key +
                                     ", which this run depends on (train_position --save records it as \"" + key +
                                     "\"); save the model again with train_position --save");
        if (saved != file.metadata.end() && saved->second != value && !looks_like_whole_number(saved->second))
            throw std::runtime_error(nul_shown(fault + "its __metadata__ records the " + key + " as \"" + shortened(saved->second) +
                                               "\", which is not a whole number (no run has that --" + key +
                                               "); the file was edited or made elsewhere: save the model again with train_position --save"));
        if (saved != file.metadata.end() && saved->second != value)
            throw std::runtime_error(nul_shown(fault + "saved with --" + key + " " + shortened(saved->second) + "; this run has --" + key +
                                               " " + value + "; give the " + key + " it was saved with"));
    }
    const WeightsLayout layout = weights_layout(file, model, f.load_path);
    const bool taken_as_this_run = !has_task || !has_scheme;
    if (taken_as_this_run && layout == WeightsLayout::ours)
        throw std::runtime_error(fault + "its __metadata__ does not say the task and scheme it was saved as; "
                                 "train_position --save records them, and only a file in the chapter's PyTorch "
                                 "layout (emb.weight, layers.N.qkv.weight, ...) loads without them");
    load_parameters(model, file, f.load_path, layout);
    // Said once the weights have loaded: a file that then fails to load gets its one line of refusal alone.
    if (taken_as_this_run) {
        const std::string note = fault + "the chapter's PyTorch layout, with no task and scheme in its metadata: loaded as " +
                                 c.task + " " + c.scheme + ", this run's task and scheme";
        if (f.load_notice) f.load_notice(note);
        else std::fprintf(stderr, "%s\n", note.c_str());
    }
}

}  // namespace

void check_files(const RunConfig& c, const RunFiles& f) {
    if (c.steps == 0 && f.load_path.empty())
        throw std::invalid_argument("--steps must be from 1 to " + std::to_string(max_steps) +
                                    ", got 0 (0 is allowed with --load: evaluate the loaded weights without training)");
    validate(c);
    // Refused now rather than after the training: a file that is not a weights file (a results table, a
    // source file: one typo would replace it), then a folder that is not there or not writable, a
    // device, a link. What is at the path comes first: on a read-only /proc, "/proc/version is not a
    // weights file" says more than "/proc is not writable".
    if (!f.save_path.empty()) {
        const std::string what_is_there = not_a_weights_file(f.save_path);
        if (!what_is_there.empty())
            throw std::invalid_argument("--save " + f.save_path + ": a file is there that is not a weights file (" + what_is_there +
                                        "); --save replaces only a weights file, so nothing was run: give a new path, "
                                        "or move that file away first");
        check_output_path(f.save_path, "--save");
    }
    if (f.save_layout == WeightsLayout::chapter && f.save_path.empty())
        throw std::invalid_argument("--save-layout chapter needs --save FILE");
    if (f.save_layout == WeightsLayout::chapter && parse_position_spec(c.scheme).kind == PositionSpec::Kind::t5)
        throw std::invalid_argument("--save-layout chapter: the chapter's PyTorch model has no t5 scheme (it has none, "
                                    "sinusoid, learned, rope and alibi); save t5 weights in our layout");
}

RunHooks weights_hooks(const RunConfig& c, const RunFiles& f) {
    RunHooks hooks;
    if (!f.load_path.empty()) hooks.before_training = [c, f](Transformer& model) { load_run_weights(c, f, model); };
    if (!f.save_path.empty())
        hooks.after_training = [c, f](Transformer& model) {
            // Checked again: a file of another kind may have been put there while the model trained.
            const std::string what_is_there = not_a_weights_file(f.save_path);
            if (!what_is_there.empty())
                throw std::runtime_error("--save " + f.save_path + ": a file that is not a weights file was put there during the run (" +
                                         what_is_there + "); it was kept, and the trained weights were not saved");
            save_weights(f.save_path, model, {}, saved_for(c), f.save_layout);
        };
    return hooks;
}

}  // namespace wai
