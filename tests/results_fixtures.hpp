// What make experiment and make experiment-extension leave in a results folder, written without
// training, for the collectors' and the prune's tests: result lines, settings lines and run weights.
// Leaves out real figures (every accuracy is 1.000).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "experiment/results_files.hpp"
#include "experiment/summary.hpp"
#include "files/weights_file.hpp"
#include "positional/context_extension.hpp"
#include "tasks/result_line.hpp"
#include "tests/programs.hpp"

namespace wai::testing {

// A result line as train_position prints it for a run trained at 32 and tested at `lengths`, every
// accuracy 1.000 (with `extension`, as a test of a RoPE model's weights with it: "pi:2").
inline std::string result_line(const std::string& task, const std::string& scheme, uint64_t seed, const std::vector<int64_t>& lengths,
                        const std::string& extension = "") {
    wai::RunConfig config;
    config.task = task, config.scheme = scheme, config.seed = seed, config.test_lengths = lengths;
    wai::RunResult result;
    result.accuracy.assign(lengths.size(), 1.0);
    result.has_past_train = lengths.back() > config.train_length;
    result.past_train_accuracy = result.scaled_accuracy = 1.0;
    result.extension = extension;
    return wai::format_result_line(config, result);
}

// Weights as train_position --save leaves them: a safetensors file whose metadata names the run (one
// small tensor: what the collectors read of a run's weights is the header).
inline void write_run_weights(const std::string& path, const std::string& task, const std::string& scheme, uint64_t seed) {
    wai::write_weights_file(path, {{"w", wai::Tensor::zeros(wai::Shape{2})}},
                            {{"task", task}, {"scheme", scheme}, {"seed", std::to_string(seed)}, {"made_by", "whereami train_position"}});
}

// Every run of make experiment for seed 0 finished with RUN_FLAGS '', in folder/runs: result, settings, weights.
inline void write_finished_experiment(const Folder& folder) {
    std::filesystem::create_directories(folder.path / "runs");
    for (const auto& task : wai::experiment_tasks)
        for (const auto& scheme : wai::experiment_schemes) {
            const std::string name = folder.file("runs/" + wai::run_name(task, scheme, 0));
            write_bytes(name + ".txt", result_line(task, scheme, 0, {32, 64, 128}) + "\nsettings: train_position " + task + " " +
                                           scheme + " 0\n");
            write_run_weights(name + ".safetensors", task, scheme, 0);
        }
}

// Every result make experiment-extension leaves in folder/RESULTS for EXTENSION_LENGTHS='32 64' and seed 0,
// each trained model's weights beside its result.
inline void write_finished_extension(const Folder& folder, const std::string& results) {
    const std::vector<std::string> schemes = {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625", "t5"};
    const std::pair<std::string, wai::ExtensionSpec::Kind> methods[] = {
        {"pi", wai::ExtensionSpec::Kind::pi}, {"ntk", wai::ExtensionSpec::Kind::ntk}, {"yarn", wai::ExtensionSpec::Kind::yarn}};
    for (const std::string task : {"lag", "seen"})
        for (const auto& scheme : schemes) {
            const std::string settings = "settings: train_position " + task + " " + scheme + " 0\n";
            std::filesystem::create_directories(folder.path / results / "extension/trained");
            const std::string trained = folder.file(results + "/extension/trained/" + wai::run_name(task, scheme, 0));
            write_bytes(trained + ".txt", result_line(task, scheme, 0, {32, 64}) + "\n" + settings);
            write_run_weights(trained + ".safetensors", task, scheme, 0);
            if (scheme.rfind("rope", 0) != 0) continue;
            for (const auto& [method, kind] : methods)
                for (const int64_t length : {32, 64}) {
                    const std::string folder_name = results + "/extension/" + method + "-" + std::to_string(length);
                    std::filesystem::create_directories(folder.path / folder_name);
                    write_bytes(folder.file(folder_name + "/" + wai::run_name(task, scheme, 0) + ".txt"),
                                result_line(task, scheme, 0, {length}, wai::extension_name(kind, length / 32.0)) + "\n" + settings);
                }
        }
}

}  // namespace wai::testing
