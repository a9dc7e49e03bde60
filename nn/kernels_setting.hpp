// The kernels setting: which ops the model is built from. `plain` is the reading path, the chapter's
// math as a chain of plain autograd ops (autograd/ops.hpp); `fast` swaps in the fast kernels beside
// them (autograd/fast/, positional/fast/), which compute the same numbers within float rounding with
// fewer passes over memory. One setting for the whole process, `fast` unless set; a layer asks
// fast_kernels() where it has a fast kernel to swap in, and nowhere else.
// Leaves out choosing per layer or per op.
#pragma once
#include <string>

namespace wai {

enum class Kernels { plain, fast };

Kernels kernels();
void set_kernels(Kernels choice);
inline bool fast_kernels() { return kernels() == Kernels::fast; }

// "plain" or "fast"; anything else throws std::invalid_argument naming it and the two choices.
Kernels parse_kernels(const std::string& text);
const char* kernels_name(Kernels choice);

// Sets the kernels for a scope and restores the previous choice at its end (tests use it).
class KernelsScope {
public:
    explicit KernelsScope(Kernels choice) : previous_(kernels()) { set_kernels(choice); }
    ~KernelsScope() { set_kernels(previous_); }
    KernelsScope(const KernelsScope&) = delete;
    KernelsScope& operator=(const KernelsScope&) = delete;

private:
    Kernels previous_;
};

}  // namespace wai
