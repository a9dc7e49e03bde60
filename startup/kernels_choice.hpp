// The kernels a program's model runs on, chosen once where the model is made: `plain`, the syllabus's
// Transformer (the chapter's math as a chain of plain ops: the reading path), or `fast`, FastTransformer
// (fast/fast_transformer.hpp), the same numbers within float rounding with fewer passes over memory.
// train_position and bench_step take --kernels plain|fast, fast unless given; the lessons and the
// exercises' checkers are the reading path, always plain.
// Leaves out choosing per layer or per op.
#pragma once
#include <string>

#include "tasks/run_config.hpp"

namespace wai {

enum class Kernels { plain, fast };

// "plain" or "fast"; anything else throws std::invalid_argument naming it and the two choices.
Kernels parse_kernels(const std::string& text);
const char* kernels_name(Kernels choice);
// fast where the build has the fast tree, plain where it leaves it out.
Kernels default_kernels();

// RunConfig::make_transformer for the choice: null (the plain Transformer) or fast::make_fast_transformer.
TransformerMaker transformer_maker(Kernels choice);
// RunConfig::make_step for the choice: null (training_step, the whole batch at once) or
// fast::make_split_step (micro-batches on threads).
StepMaker step_maker(Kernels choice);
// How a step of `batch` sequences uses `threads` threads with the choice, for --verbose: "a step in 4
// micro-batches of 16 sequences, 2 at a time" or "a step on the whole batch, each op on 2 threads".
std::string step_description(Kernels choice, int64_t batch, int threads);

}  // namespace wai
