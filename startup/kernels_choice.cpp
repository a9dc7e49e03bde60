// The kernels choice, with the fast tree built in. startup/kernels_choice_plain.cpp stands in for this
// file where the fast tree is left out (make plain-build).
#include "startup/kernels_choice.hpp"

#include <algorithm>
#include <stdexcept>

#include "fast/fast_transformer.hpp"
#include "fast/split_step.hpp"

namespace wai {

Kernels parse_kernels(const std::string& text) {
    if (text == "plain") return Kernels::plain;
    if (text == "fast") return Kernels::fast;
    throw std::invalid_argument("unknown kernels '" + text + "': the choices are plain (the chain of plain ops) and fast");
}

const char* kernels_name(Kernels choice) { return choice == Kernels::plain ? "plain" : "fast"; }

Kernels default_kernels() { return Kernels::fast; }

TransformerMaker transformer_maker(Kernels choice) {
    return choice == Kernels::fast ? fast::make_fast_transformer : nullptr;
}

StepMaker step_maker(Kernels choice) { return choice == Kernels::fast ? fast::make_split_step : nullptr; }

namespace {
std::string whole_batch_step(int threads) {
    return "a step on the whole batch, each op on " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
}
}  // namespace

std::string step_description(Kernels choice, int64_t batch, int threads) {
    if (choice == Kernels::plain) return whole_batch_step(threads);
    const int64_t parts = fast::micro_batches(batch);
    const int64_t at_once = std::min<int64_t>(parts, threads);
    return "a step in " + std::to_string(parts) + " micro-batch" + (parts == 1 ? "" : "es") + " of " +
           std::to_string(batch / parts) + " sequences, " + std::to_string(at_once) + " at a time (fast/split_step.hpp)";
}

}  // namespace wai
