// The training step on threads: the batch cut into micro-batches of whole sequences, each one's
// forward and backward on a copy of the model of its own, as many at once as there are threads, and
// the copies' gradients summed in a fixed order into the model's before the one update. How the batch
// is cut depends on the batch alone, never on the threads, so a run prints the same numbers on any
// number of threads; against training_step (the whole batch at once) only the float order of the
// sums over the batch differs. A program chooses it once, with the model (RunConfig::make_step).
// Leaves out splitting a sequence (the attention of a sequence is one op), and more threads than
// micro-batches (the rest idle through the step).
#pragma once
#include <cstdint>

#include "tasks/run_config.hpp"

namespace wai::fast {

// How many micro-batches a batch of `batch` sequences is cut into: 1, 2, 4 or 8, of equal sizes and
// at least 16 sequences each (the chapter's 64: 4 of 16). A batch of fewer than 32 is one: the step
// is then training_step's, to the bit.
int64_t micro_batches(int64_t batch);

// A StepMaker (tasks/run_config.hpp) for RunConfig::make_step: the copies are made here, once, by
// make_model(config), and take the model's weights before every step.
StepFunction make_split_step(Transformer& model, const RunConfig& config);

}  // namespace wai::fast
