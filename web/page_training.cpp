// One run of the chapter's experiment for the page (web/page_training.hpp).
#include "web/page_training.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiment/summary.hpp"
#include "fast/fast_transformer.hpp"
#include "fast/split_step.hpp"
#include "positional/spec.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/result_line.hpp"
#include "tensor/number_text.hpp"
#include "web/page_json.hpp"

namespace page {
namespace {

// Whether two scheme texts name the same scheme: "rope", "rope:10000" and "rope:1e4" do, as do
// "rope:1e6" and the chapter's "rope:1000000" (the chapter's rows are found for any spelling).
bool same_scheme(const std::string& a, const std::string& b) {
    const wai::PositionSpec x = wai::parse_position_spec(a), y = wai::parse_position_spec(b);
    if (x.kind != y.kind) return false;
    // The value a scheme without one has: RoPE's base 10000, T5's 32 buckets; ALiBi's geometric
    // slopes have no one value, so "alibi" matches only "alibi".
    const auto value = [](const wai::PositionSpec& spec) {
        if (spec.has_value) return spec.value;
        if (spec.kind == wai::PositionSpec::Kind::rope) return 10000.0;
        if (spec.kind == wai::PositionSpec::Kind::t5) return 32.0;
        return -1.0;
    };
    return value(x) == value(y);
}

}  // namespace

// "" when the run can start, else the reason (train_position's own words for a bad task, scheme or size).
std::string Training::begin(const std::string& task, const std::string& scheme, const std::string& seed, const std::string& steps) {
    try {
        wai::RunConfig config;
        config.task = task;
        config.scheme = scheme;
        // As train_position takes them: digits only, the seed 0 or more, the steps 1 to 100000.
        const auto whole_number = [](const std::string& text, const std::string& what, int64_t low, int64_t high) {
            int64_t value = low - 1;
            try {
                value = wai::parse_integer(text, what);
            } catch (const std::invalid_argument&) {
            }
            if (value < low || value > high)
                throw std::invalid_argument(what + " must be a whole number from " + std::to_string(low) + " to " +
                                            std::to_string(high) + ", got '" + text + "'");
            return value;
        };
        config.seed = static_cast<uint64_t>(whole_number(seed, "the seed", 0, 1000000000));
        config.steps = whole_number(steps, "the number of steps", 1, 100000);
        wai::validate(config);
        config.make_transformer = wai::fast::make_fast_transformer;  // as train_position's default
        config.make_step = wai::fast::make_split_step;
        model_ = wai::make_model(config);
        state_ = std::make_unique<wai::TrainingState>(*model_, config);
        step_ = config.make_step(*model_, config);
        config_ = config;
        result_ = {};
        steps_done_ = 0;
        tested_ = false;
        return "";
    } catch (const std::exception& e) {
        model_.reset();
        state_.reset();
        return error_text(e.what());
    }
}

// Up to `count` more steps: {"step": steps done, "steps": the run's steps, "losses": [one per step]}.
std::string Training::run(int count) {
    if (!state_) return error_text("no run has begun");
    json losses = json::array();
    try {
        for (int i = 0; i < count && steps_done_ < config_.steps; ++i) {
            const double loss = step_(*model_, state_->optimizer, state_->task, state_->data, config_);
            ++steps_done_;
            if (!std::isfinite(loss))
                return error_text("training stopped at step " + std::to_string(steps_done_) + ": the loss is " +
                                  std::to_string(loss));
            result_.final_loss = loss;
            losses.push_back(loss);
        }
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
    return json{{"step", steps_done_}, {"steps", config_.steps}, {"losses", losses}}.dump();
}

// The run's tests, as train_position's: {"line": its result line, "accuracy": [...], "lengths": [...],
// "steps_done", "steps", "chapter_steps" (the chapter's 2000), "always_no" (for seen, the five figures of
// answering "no" everywhere; else empty), "chapter": [the chapter's rows for this task and scheme, seeds 0 and 1]}.
// Stopped early, the model is tested as it is (the page says after how many steps).
std::string Training::result() {
    if (!model_) return error_text("no run has begun");
    try {
        if (!tested_) {
            wai::RunConfig tested = config_;
            tested.steps = steps_done_;
            wai::test_model(*model_, tested, result_);
            tested_ = true;
        }
        json chapter = json::array();
        std::ifstream table(chapter_table_path);
        for (std::string line; std::getline(table, line);) {
            const auto row = wai::parse_result_line(line);
            if (row && row->task == config_.task && same_scheme(row->scheme, config_.scheme)) chapter.push_back(line);
        }
        json always_no = json::array();  // for seen: answering "no" everywhere, on the same test sequences
        if (config_.task == "seen" && config_.test_lengths == wai::experiment_lengths && config_.train_length == 32)
            always_no = wai::always_no_figures({config_.seed});
        return json{{"line", wai::format_result_line(config_, result_)},
                    {"steps_done", steps_done_},
                    {"steps", config_.steps},
                    {"chapter_steps", wai::RunConfig{}.steps},
                    {"always_no", always_no},
                    {"lengths", config_.test_lengths},
                    {"accuracy", result_.accuracy},
                    {"chapter", chapter}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

// The attention weights of every layer (head 0) on the seed's first test sequence of `length`,
// as make plots draws them: {"length", "layers": [[row-major T x T weights], ...], "summary": [...]}.
std::string Training::attention(int length) {
    if (!model_) return error_text("no run has begun");
    try {
        wai::RunConfig config = config_;
        config.test_lengths = {length};
        wai::validate(config);  // a learned table shorter than `length` is refused here
        const wai::Task task = wai::configured_task(config);
        const wai::Batch sequence = wai::test_batch(task, config.seed, length, 1);
        std::vector<wai::Tensor> maps;  // one (1, NH, T, T) per layer
        {
            wai::NoGradScope no_grad;
            wai::ForwardOptions options;
            options.attention_weights = &maps;
            model_->forward(sequence.tokens, 1, length, options);
        }
        json layers = json::array(), summary = json::array();
        const int64_t T = length;
        for (const wai::Tensor& weights : maps) {
            layers.push_back(std::vector<float>(weights.data(), weights.data() + T * T));
            // Where queries past the training length look, as make plots says it.
            const wai::AttentionReach reach = wai::attention_reach(weights.data(), T, config.train_length, config.lag);
            summary.push_back({{"queries", reach.queries},
                               {"lag_back", reach.lag_back},
                               {"mean_distance", reach.mean_distance}});
        }
        return json{{"length", T}, {"train_length", config.train_length}, {"lag", config.lag},
                    {"layers", layers}, {"summary", summary}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

// The trained RoPE model tested at one length with a context extension ("pi", "ntk", "yarn", or
// "" for none), at s = length / train length as make experiment-extension does:
// {"method", "length", "accuracy", "past_train", "line"}.
std::string Training::extension(const std::string& method, int length) {
    if (!model_) return error_text("no run has begun");
    try {
        wai::RunConfig config = config_;
        config.steps = steps_done_;
        config.test_lengths = {length};
        config.extension = method;
        wai::validate(config);  // only RoPE models take an extension, at lengths it allows
        wai::RunResult tested;
        wai::test_model(*model_, config, tested);
        return json{{"method", method.empty() ? "none" : method},
                    {"length", length},
                    {"accuracy", tested.accuracy.at(0)},
                    {"past_train", tested.past_train_accuracy},
                    {"line", wai::format_result_line(config, tested)}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

}  // namespace page
