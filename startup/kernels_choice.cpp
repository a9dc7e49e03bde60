// The kernels choice, with the fast tree built in. startup/kernels_choice_plain.cpp stands in for this
// file where the fast tree is left out (make plain-build).
#include "startup/kernels_choice.hpp"

#include <stdexcept>

#include "fast/fast_transformer.hpp"

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

}  // namespace wai
