// What the web page asks of the engine (web/page.js and web/training_worker.js), bound to JavaScript
// with Emscripten's embind. Every answer is a JSON text; a request the engine refuses comes back
// as {"error": "<the engine's one-line reason>"}, never as a thrown exception.
//   position_scores(m, n, slope)  the blog's widget: the chapter's own q and k (lesson 05's data) with
//                                 the query at m and the key at n, scored with RoPE (the engine's
//                                 rope_rotate), with sinusoids added (sinusoid_table) and with ALiBi's
//                                 penalty (alibi_bias at that slope); positions 0..widget_positions-1
//   rotation_pairs(m, n)          the same q and k pair by pair, each pair turned by its angle, for
//                                 the widget's drawing of the rotation
//   Training                      one run of the chapter's experiment, stepped a few steps at a time
//                                 so that the worker can report the loss and be stopped between
//                                 steps: the same model, batches and updates as train_position's run
//                                 (tasks/experiment.hpp's make_model and TrainingState; fast/split_step.hpp's step, as train_position's),
//                                 then its result line, the chapter's rows for that scheme, attention
//                                 maps on one test sequence, and RoPE context extension at one length.
//   experiment_runs()             the chapter's experiment: its tasks and schemes in results/table.txt's
//                                 order, and its steps (the page's experiment section runs them)
//   experiment_summary(lines, seeds, steps)  the finished runs' result lines judged as make experiment
//                                 judges them (experiment/summary.hpp): each figure's seed mean beside
//                                 the chapter's, marked outside the allowance, and results/summary.md
// Leaves out weight files, threads (the page's engine has one) and the lessons (web/lessons_page.cpp).
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/ops.hpp"
#include "fast/fast_transformer.hpp"
#include "fast/split_step.hpp"
#include "positional/alibi.hpp"
#include "tensor/number_text.hpp"
#include "positional/rope.hpp"
#include "positional/sinusoid.hpp"
#include "positional/spec.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "experiment/results_files.hpp"
#include "experiment/summary.hpp"
#include "startup/output_check.hpp"
#include "tensor/elementwise.hpp"

using json = nlohmann::json;

namespace {

// Where the page's module finds the files em++ embedded in it (platform/web.mk).
const char* const chapter_vectors_path = "/lessons/data/chapter_rope_vectors.txt";
const char* const chapter_table_path = "/experiment/chapter_table.txt";
constexpr int widget_positions = 256;  // the sliders' range: 0..255
constexpr double widget_base = 10000.0;

std::string error_text(const std::string& reason) { return json{{"error", wai::one_line(reason)}}.dump(); }

// The chapter's q and k: lines "q x0 x1 ..." and "k ..." ('#' lines are notes), as lesson 05 reads them.
struct ChapterVectors {
    std::vector<float> q, k;
};
const ChapterVectors& chapter_vectors() {
    static const ChapterVectors vectors = [] {
        ChapterVectors read;
        std::ifstream file(chapter_vectors_path);
        for (std::string line; std::getline(file, line);) {
            std::istringstream words(line);
            std::string name;
            words >> name;
            std::vector<float>* target = name == "q" ? &read.q : name == "k" ? &read.k : nullptr;
            if (target == nullptr) continue;
            for (double x; words >> x;) target->push_back(static_cast<float>(x));
        }
        if (read.q.empty() || read.q.size() != read.k.size() || read.q.size() % 2 != 0)
            throw std::runtime_error(std::string(chapter_vectors_path) + " does not hold a q and a k of one even length");
        return read;
    }();
    return vectors;
}

// (P, H): the vector on every row; after rope_rotate, row p is the vector at position p.
wai::Tensor at_every_position(const std::vector<float>& vector, int64_t P) {
    const int64_t H = static_cast<int64_t>(vector.size());
    wai::Tensor rows({P, H});
    for (int64_t p = 0; p < P; ++p) std::copy(vector.begin(), vector.end(), rows.data() + p * H);
    return rows;
}

double row_dot(const wai::Tensor& a, int64_t i, const wai::Tensor& b, int64_t j) {
    const int64_t H = a.size(1);
    double total = 0.0;
    for (int64_t c = 0; c < H; ++c) total += double(a[i * H + c]) * b[j * H + c];
    return total;
}

}  // namespace

// The chapter's q and k placed at every position 0..P-1, as they are and through each scheme that
// acts on them: made once, on the widget's first call (they depend on no slider).
struct PlacedVectors {
    wai::Tensor q, k;                  // (P, H): row p is the vector, unchanged
    wai::Tensor rotated_q, rotated_k;  // (P, H): row p is the vector rotated to position p
    wai::Tensor q_plus, k_plus;        // (P, H): row p is the vector plus sinusoid row p
};
const PlacedVectors& placed_vectors() {
    static const PlacedVectors placed = [] {
        const ChapterVectors& chapter = chapter_vectors();
        const int64_t H = static_cast<int64_t>(chapter.q.size()), P = widget_positions;
        PlacedVectors v;
        v.q = at_every_position(chapter.q, P);
        v.k = at_every_position(chapter.k, P);
        const wai::RopeTable table =
            wai::make_rope_table(P, wai::rope_frequencies(H, widget_base), wai::RopePairing::interleaved);
        v.rotated_q = wai::rope_rotate(v.q, table);
        v.rotated_k = wai::rope_rotate(v.k, table);
        const wai::Tensor pe = wai::sinusoid_table(P, H);  // (P, H)
        v.q_plus = wai::add(v.q, pe);
        v.k_plus = wai::add(v.k, pe);
        return v;
    }();
    return placed;
}

// The widget's four scores for a query at m and a key at n: q·k with no position; RoPE; sinusoids
// added to both; ALiBi's penalty -slope·|m - n| (a causal model sees only keys n <= m: the widget
// shows the penalty the pair would get with the later one as the query).
std::string position_scores(int m, int n, double slope) {
    try {
        if (m < 0 || n < 0 || m >= widget_positions || n >= widget_positions)
            return error_text("positions must be from 0 to " + std::to_string(widget_positions - 1) + ", got " +
                              std::to_string(m) + " and " + std::to_string(n));
        if (!(slope >= 0.0) || !std::isfinite(slope)) return error_text("the ALiBi slope must be 0 or more");
        const PlacedVectors& v = placed_vectors();
        const int64_t later = std::max(m, n), earlier = std::min(m, n), L = later + 1;
        const wai::Tensor bias = wai::alibi_bias({slope}, L);  // (1, L, L): row = query, column = key <= query
        const double dot = row_dot(v.q, m, v.k, n);
        return json{{"m", m},
                    {"n", n},
                    {"distance", n - m},
                    {"dot", dot},
                    {"rope", row_dot(v.rotated_q, m, v.rotated_k, n)},
                    {"sinusoid", row_dot(v.q_plus, m, v.k_plus, n)},
                    {"alibi", dot + double(bias[later * L + earlier])},
                    {"head_dim", v.q.size(1)},
                    {"base", widget_base},
                    {"positions", widget_positions}}
            .dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

// The rotation itself, for the widget's drawing: q at m and k at n as the engine rotates them
// (rope_rotate, interleaved pairs (0, 1), (2, 3), ...), pair by pair: {"pairs": [{"theta", "q": [x, y]
// unrotated, "k": [x, y], "q_turned": [x, y] at m, "k_turned": [x, y] at n, "dot": the pair's share of the
// score}], "rope": the RoPE score, the sum of the pairs' dots}.
std::string rotation_pairs(int m, int n) {
    try {
        if (m < 0 || n < 0 || m >= widget_positions || n >= widget_positions)
            return error_text("positions must be from 0 to " + std::to_string(widget_positions - 1));
        const PlacedVectors& v = placed_vectors();
        const int64_t H = v.q.size(1);
        const std::vector<double> theta = wai::rope_frequencies(H, widget_base);
        json pairs = json::array();
        double total = 0;
        for (int64_t i = 0; i < H / 2; ++i) {
            const auto at = [&](const wai::Tensor& t, int64_t row) {
                return std::vector<double>{t[row * H + 2 * i], t[row * H + 2 * i + 1]};
            };
            const std::vector<double> q = at(v.rotated_q, m), k = at(v.rotated_k, n);
            const double dot = q[0] * k[0] + q[1] * k[1];
            total += dot;
            pairs.push_back({{"theta", theta[i]}, {"q", at(v.q, m)}, {"k", at(v.k, n)}, {"q_turned", q},
                             {"k_turned", k}, {"dot", dot}});
        }
        return json{{"m", m}, {"n", n}, {"pairs", pairs}, {"rope", total}}.dump();
    } catch (const std::exception& e) {
        return error_text(e.what());
    }
}

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

// One run of the experiment for the page: begin() checks and builds, run() takes steps, then the
// tests of the trained model. Every method answers in JSON (see the file's header).
class Training {
public:
    // "" when the run can start, else the reason (train_position's own words for a bad task, scheme or size).
    std::string begin(const std::string& task, const std::string& scheme, const std::string& seed, const std::string& steps) {
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
    std::string run(int count) {
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
    std::string result() {
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
    std::string attention(int length) {
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
    std::string extension(const std::string& method, int length) {
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

private:
    wai::RunConfig config_;
    std::unique_ptr<wai::Transformer> model_;
    std::unique_ptr<wai::TrainingState> state_;
    wai::StepFunction step_;
    wai::RunResult result_;
    int64_t steps_done_ = 0;
    bool tested_ = false;
};

EMSCRIPTEN_BINDINGS(whereami_page) {
    emscripten::function("position_scores", &position_scores);
    emscripten::function("rotation_pairs", &rotation_pairs);
    emscripten::function("experiment_runs", &experiment_runs);
    emscripten::function("experiment_summary", &experiment_summary);
    emscripten::class_<Training>("Training")
        .constructor<>()
        .function("begin", &Training::begin)
        .function("run", &Training::run)
        .function("result", &Training::result)
        .function("attention", &Training::attention)
        .function("extension", &Training::extension);
}
