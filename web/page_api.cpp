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
// The calls: web/page_widget.cpp, web/page_experiment.cpp, web/page_training.cpp; here only their binding.
// Leaves out weight files, threads (the page's engine has one) and the lessons (web/lessons_page.cpp).
#include <emscripten/bind.h>

#include "web/page_experiment.hpp"
#include "web/page_training.hpp"
#include "web/page_widget.hpp"

EMSCRIPTEN_BINDINGS(whereami_page) {
    emscripten::function("position_scores", &page::position_scores);
    emscripten::function("rotation_pairs", &page::rotation_pairs);
    emscripten::function("experiment_runs", &page::experiment_runs);
    emscripten::function("experiment_summary", &page::experiment_summary);
    emscripten::class_<page::Training>("Training")
        .constructor<>()
        .function("begin", &page::Training::begin)
        .function("run", &page::Training::run)
        .function("result", &page::Training::result)
        .function("attention", &page::Training::attention)
        .function("extension", &page::Training::extension);
}
