// Test-time context extension of a trained RoPE model by a factor s: the spec typed after --extend
// (pi, ntk, yarn or yarn-paper, each with an optional ":s"), and the RoPE a test runs with in place
// of the trained one (ForwardOptions::position, nn/attention.hpp): the trained model is not changed.
// The methods are one file each, with their formulas and sources: position_interpolation.hpp,
// ntk_scaling.hpp, yarn.hpp (YaRN as its authors' code and Hugging Face compute it) and
// yarn_paper.hpp (YaRN's ramp as the paper prints it, a variant). ABF ("adjusted base frequency", Xiong et al. 2023) is no method here:
// it is a larger base chosen before training, the scheme rope:500000.
// Leaves out fine-tuning after extending (the papers' recipe; here each method is applied as is).
#pragma once
#include <memory>
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

// A RoPE with the method's frequencies (and for both YaRNs its query_key_scale) at factor s >= 1, computed
// from the trained RoPE's head dimension, base and pairing; train_length is YaRN's L. At s = 1 every
// method is plain RoPE.
std::unique_ptr<RotaryPositions> extend_context(int64_t head_dim, double base, RopePairing pairing,
                                                ExtensionSpec::Kind kind, double factor, int64_t train_length);

}  // namespace wai
