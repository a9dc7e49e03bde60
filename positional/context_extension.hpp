// Test-time context extension of a trained RoPE model by a factor s: the spec typed after --extend
// (pi, ntk, yarn or yarn-paper, each with an optional ":s"), and setting a model's RotaryPositions to it.
// The methods are one file each, with their formulas and sources: position_interpolation.hpp,
// ntk_scaling.hpp, yarn.hpp (YaRN as its authors' code and Hugging Face compute it) and
// yarn_paper.hpp (YaRN's ramp as the paper prints it, a variant). ABF ("adjusted base frequency", Xiong et al. 2023) is no method here:
// it is a larger base chosen before training, the scheme rope:500000.
// Leaves out fine-tuning after extending (the papers' recipe; here each method is applied as is).
#pragma once
#include <string>

#include "positional/rope.hpp"

namespace wai {

struct ExtensionSpec {
    enum class Kind { pi, ntk, yarn, yarn_paper };
    Kind kind = Kind::pi;
    double factor = 1.0;      // s
    bool has_factor = false;  // false: the caller picks s (train_position: longest test length / training length)
};

// Throws std::invalid_argument naming the bad spec and listing the valid forms.
ExtensionSpec parse_extension_spec(const std::string& text);
extern const char* const extension_spec_forms;  // "pi[:s], ntk[:s], yarn[:s], yarn-paper[:s] ..."

// "yarn:16": the method and the factor it was applied with, for result lines.
std::string extension_name(ExtensionSpec::Kind kind, double factor);

// Replaces rope's frequencies (and for both YaRNs its query_key_scale) by the method's at factor s >= 1,
// computed from rope's head dimension and base; train_length is YaRN's L. s = 1 leaves every method equal to plain RoPE.
void extend_context(RotaryPositions& rope, ExtensionSpec::Kind kind, double factor, int64_t train_length);

}  // namespace wai
