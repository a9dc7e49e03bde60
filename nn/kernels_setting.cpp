// The kernels setting: one process-wide choice. Leaves out changing it while a model runs on
// another thread: programs set it once, before building anything.
#include "nn/kernels_setting.hpp"

#include <stdexcept>

namespace wai {

namespace {
Kernels current = Kernels::fast;
}

Kernels kernels() { return current; }
void set_kernels(Kernels choice) { current = choice; }

Kernels parse_kernels(const std::string& text) {
    if (text == "plain") return Kernels::plain;
    if (text == "fast") return Kernels::fast;
    throw std::invalid_argument("unknown kernels '" + text + "': the choices are plain (the chain of plain ops) and fast");
}

const char* kernels_name(Kernels choice) { return choice == Kernels::plain ? "plain" : "fast"; }

}  // namespace wai
