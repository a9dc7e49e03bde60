// Spec parsing: a name, then for rope and alibi an optional ":number". Leaves out aliases.
#include "positional/spec.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace wai {

const char* const position_spec_forms =
    "none, sinusoid, learned, rope[:base] (base > 1, default 10000), alibi[:slope] (slope > 0, default 2^(-8k/heads))";

static double parse_number(const std::string& text, const std::string& spec) {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
        throw std::invalid_argument("bad position scheme '" + spec + "': '" + text + "' is not a number; valid forms: " +
                                    position_spec_forms);
    return value;
}

PositionSpec parse_position_spec(const std::string& text) {
    PositionSpec spec;
    spec.text = text;
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const bool has_arg = colon != std::string::npos;
    auto refuse = [&](const std::string& why) {
        throw std::invalid_argument("bad position scheme '" + text + "': " + why + "; valid forms: " + position_spec_forms);
    };
    if (name == "none" || name == "sinusoid" || name == "learned") {
        if (has_arg) refuse("'" + name + "' takes no ':value'");
        spec.kind = name == "none" ? PositionSpec::Kind::none
                    : name == "sinusoid" ? PositionSpec::Kind::sinusoid
                                         : PositionSpec::Kind::learned;
        return spec;
    }
    if (name == "rope" || name == "alibi") {
        spec.kind = name == "rope" ? PositionSpec::Kind::rope : PositionSpec::Kind::alibi;
        if (!has_arg) return spec;
        spec.value = parse_number(text.substr(colon + 1), text);
        spec.has_value = true;
        if (spec.kind == PositionSpec::Kind::rope && !(spec.value > 1.0)) refuse("a RoPE base must be greater than 1");
        if (spec.kind == PositionSpec::Kind::alibi && !(spec.value > 0.0)) refuse("an ALiBi slope must be positive");
        return spec;
    }
    refuse("unknown scheme '" + name + "'");
    return spec;  // not reached
}

}  // namespace wai
