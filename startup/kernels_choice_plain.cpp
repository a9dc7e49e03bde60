// The kernels choice in the build without the fast tree (make plain-build, which proves that the
// lessons and train_position build and run from the plain reference alone): `fast` is refused, saying
// why. Stands in for startup/kernels_choice.cpp there, never in the full build.
#include <stdexcept>
#include <string>

#include "startup/kernels_choice.hpp"

namespace wai {

Kernels parse_kernels(const std::string& text) {
    if (text == "plain") return Kernels::plain;
    if (text == "fast")
        throw std::invalid_argument("--kernels fast: this build leaves out the fast tree (fast/, make plain-build); "
                                    "the choice here is plain");
    throw std::invalid_argument("unknown kernels '" + text + "': the choice in this build is plain (the chain of plain ops)");
}

const char* kernels_name(Kernels choice) { return choice == Kernels::plain ? "plain" : "fast"; }

Kernels default_kernels() { return Kernels::plain; }

TransformerMaker transformer_maker(Kernels choice) {
    if (choice == Kernels::fast) throw std::invalid_argument("--kernels fast: this build leaves out the fast tree (fast/)");
    return nullptr;
}

StepMaker step_maker(Kernels choice) {
    if (choice == Kernels::fast) throw std::invalid_argument("--kernels fast: this build leaves out the fast tree (fast/)");
    return nullptr;
}


namespace {
std::string whole_batch_step(int threads) {
    return "a step on the whole batch, each op on " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
}
}  // namespace

std::string step_description(Kernels, int64_t, int threads) { return whole_batch_step(threads); }

}  // namespace wai
