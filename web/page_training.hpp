// One run of the chapter's experiment for the page, stepped a few steps at a time so that the worker
// (web/training_worker.js) can report the loss and be stopped between steps: the same model, batches
// and updates as train_position's run (tasks/experiment.hpp's make_model and TrainingState;
// fast/split_step.hpp's step), then its result line beside the chapter's rows for that scheme,
// attention maps on one test sequence, and RoPE context extension at one length. Every method
// answers in JSON, a refusal as {"error": ...}.
// Leaves out threads (the page's engine has one) and weight files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tasks/experiment.hpp"

namespace page {

class Training {
public:
    // "" when the run can start, else the reason (train_position's own words for a bad task, scheme or size).
    std::string begin(const std::string& task, const std::string& scheme, const std::string& seed, const std::string& steps);
    // Up to `count` more steps: {"step": steps done, "steps": the run's steps, "losses": [one per step]}.
    std::string run(int count);
    // The run's tests, as train_position's (stopped early, the model as it is).
    std::string result();
    // The attention weights of every layer (head 0) on the seed's first test sequence of `length`.
    std::string attention(int length);
    // The trained RoPE model tested at one length with a context extension ("pi", "ntk", "yarn", or "").
    std::string extension(const std::string& method, int length);

private:
    wai::RunConfig config_;
    std::unique_ptr<wai::Transformer> model_;
    std::unique_ptr<wai::TrainingState> state_;
    wai::StepFunction step_;
    wai::RunResult result_;
    int64_t steps_done_ = 0;
    bool tested_ = false;
};

}  // namespace page
