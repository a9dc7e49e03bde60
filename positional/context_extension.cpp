// Extension specs and the switch from a method to its frequencies. Leaves out the formulas, which
// are in each method's own file.
#include "positional/context_extension.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "positional/ntk_scaling.hpp"
#include "tensor/number_text.hpp"
#include "positional/position_interpolation.hpp"
#include "positional/yarn.hpp"
#include "positional/yarn_paper.hpp"

namespace wai {

const char* const extension_spec_forms =
    "pi[:s], ntk[:s], yarn[:s], yarn-paper[:s] (position interpolation, NTK-aware scaling, YaRN as its "
    "authors' code ships it, YaRN's ramp as its paper prints it; s >= 1, by default the longest test length / "
    "the training length, at most 4096)";

ExtensionSpec parse_extension_spec(const std::string& text) {
    auto refuse = [&](const std::string& why) {
        throw std::invalid_argument("bad context extension '" + text + "': " + why + "; valid forms: " +
                                    extension_spec_forms);
    };
    ExtensionSpec spec;
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    if (name == "pi") spec.kind = ExtensionSpec::Kind::pi;
    else if (name == "ntk") spec.kind = ExtensionSpec::Kind::ntk;
    else if (name == "yarn") spec.kind = ExtensionSpec::Kind::yarn;
    else if (name == "yarn-paper") spec.kind = ExtensionSpec::Kind::yarn_paper;
    else refuse("unknown method '" + name + "'");
    if (colon == std::string::npos) return spec;
    const std::string number = text.substr(colon + 1);
    try {
        spec.factor = parse_real(number, "the factor s");
    } catch (const NumberPastRange& e) {  // past a double's range: past the factor's, refused below
        spec.factor = e.huge ? (e.negative ? -HUGE_VAL : HUGE_VAL) : 0.0;
    } catch (const std::invalid_argument&) {
        refuse("'" + number + "' is not a number");
    }
    // Past 4096 (the longest test length over a training length of 1) the method's frequencies mean
    // nothing: NTK's base grows past float32's range, and PI turns every position to nearly 0.
    if (!(spec.factor >= 1.0 && spec.factor <= 4096.0)) refuse("the factor s must be from 1 to 4096");
    spec.has_factor = true;
    return spec;
}

std::string extension_name(ExtensionSpec::Kind kind, double factor) {
    const char* method = "";
    switch (kind) {
        case ExtensionSpec::Kind::pi: method = "pi"; break;
        case ExtensionSpec::Kind::ntk: method = "ntk"; break;
        case ExtensionSpec::Kind::yarn: method = "yarn"; break;
        case ExtensionSpec::Kind::yarn_paper: method = "yarn-paper"; break;
    }
    std::ostringstream s;
    s << method << ":" << factor;
    return s.str();
}

std::unique_ptr<RotaryPositions> extend_context(int64_t head_dim, double base, RopePairing pairing,
                                                ExtensionSpec::Kind kind, double factor, int64_t train_length) {
    if (!(factor >= 1.0)) throw std::invalid_argument("context extension: the factor s must be at least 1");
    const std::vector<double> original = rope_frequencies(head_dim, base);
    const auto made = [&](std::vector<double> theta, double query_key_scale) {
        return std::make_unique<RotaryPositions>(head_dim, base, pairing, std::move(theta),
                                                 static_cast<float>(query_key_scale));
    };
    switch (kind) {
        case ExtensionSpec::Kind::pi: return made(position_interpolation(original, factor), 1.0);
        case ExtensionSpec::Kind::ntk:
            if (head_dim < 4) throw std::invalid_argument("ntk scaling needs a head dimension of at least 4");
            return made(rope_frequencies(head_dim, ntk_scaled_base(base, head_dim, factor)), 1.0);
        case ExtensionSpec::Kind::yarn:
        case ExtensionSpec::Kind::yarn_paper:
            if (train_length <= 0) throw std::invalid_argument("yarn needs the training length, got " + std::to_string(train_length));
            return made(kind == ExtensionSpec::Kind::yarn ? yarn_frequencies(head_dim, base, factor, train_length)
                                                          : yarn_paper_frequencies(original, factor, train_length),
                        yarn_query_key_scale(factor));
    }
    throw std::logic_error("extend_context: unhandled method");
}

}  // namespace wai
