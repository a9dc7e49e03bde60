// Position scheme specs as typed on the command line: none, sinusoid, learned, rope[:base], alibi[:slope],
// t5[:buckets], and mine (a scheme of your own, positional/mine.hpp).
// Parsing is strict: anything else is refused with a message that lists the valid forms.
// Leaves out building the scheme (positional/make_position.cpp).
#pragma once
#include <string>

namespace wai {

struct PositionSpec {
    enum class Kind { none, sinusoid, learned, rope, alibi, t5, mine };  // mine: positional/mine.hpp
    Kind kind = Kind::none;
    double value = 0.0;      // RoPE's base, ALiBi's slope, or T5's number of buckets
    bool has_value = false;  // false: the default base, the geometric slopes, or 32 buckets
    std::string text;        // the spec as given, for output lines
};

// Throws std::invalid_argument naming the bad spec and listing the valid forms.
PositionSpec parse_position_spec(const std::string& text);
extern const char* const position_spec_forms;  // "none, sinusoid, learned, rope[:base] ..."

}  // namespace wai
