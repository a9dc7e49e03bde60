// Spec parsing: a name, then for rope and alibi an optional ":number", for t5 an optional ":count".
// Leaves out aliases.
#include "positional/spec.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "tensor/number_text.hpp"

namespace wai {

namespace {
constexpr double smallest_rope_base = 1.0000002;    // as a float32, 1.00000024: the second above 1
constexpr double smallest_alibi_slope = 1.2e-38;    // above float32's smallest normal number
constexpr double largest_scheme_value = 3.4e38;     // below float32's largest number
static_assert(static_cast<float>(smallest_rope_base) > 1.0f);
static_assert(smallest_alibi_slope >= std::numeric_limits<float>::min());
static_assert(largest_scheme_value <= std::numeric_limits<float>::max());
}  // namespace

const char* const position_spec_forms =
    "none, sinusoid, learned, rope[:base] (base from 1.0000002 to 3.4e38, default 10000), alibi[:slope] (slope from "
    "1.2e-38 to 3.4e38 and at most 3.4e38 / (longest length - 1), default 2^(-8k/heads)), "
    "t5[:buckets] (a whole number from 2 to 255, default 32), mine (your own scheme: positional/mine.cpp)";

// The number after the ':', refused in the spec's own words (with the valid forms). One past a
// double's range is read as infinity or 0, for the scheme's range check to refuse with its range.
static double parse_number(const std::string& text, const std::string& spec) {
    try {
        return parse_real(text, "a position scheme's value");
    } catch (const NumberPastRange& e) {
        return e.huge ? (e.negative ? -HUGE_VAL : HUGE_VAL) : 0.0;
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument("bad position scheme '" + spec + "': '" + text + "' is not a number; valid forms: " +
                                    position_spec_forms);
    }
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
    if (name == "none" || name == "sinusoid" || name == "learned" || name == "mine") {
        if (has_arg) refuse("'" + name + "' takes no ':value'");
        spec.kind = name == "none" ? PositionSpec::Kind::none
                    : name == "sinusoid" ? PositionSpec::Kind::sinusoid
                    : name == "learned"  ? PositionSpec::Kind::learned
                                         : PositionSpec::Kind::mine;
        return spec;
    }
    if (name == "rope" || name == "alibi") {
        spec.kind = name == "rope" ? PositionSpec::Kind::rope : PositionSpec::Kind::alibi;
        if (!has_arg) return spec;
        spec.value = parse_number(text.substr(colon + 1), text);
        spec.has_value = true;
        // The engine computes in float32: a base or slope it cannot hold (infinite, or 0 or a subnormal
        // that has lost its digits, or a base that rounds to 1, where every pair turns alike) is refused.
        // The bounds are the ones the message prints, decimal numbers a float32 holds inside its range
        // (its smallest base above 1 is 1.00000012, its largest number 3.40282347e38, its smallest
        // normal 1.17549435e-38), so every number accepted is one the message allows, and the reverse.
        if (spec.kind == PositionSpec::Kind::rope && !(spec.value >= smallest_rope_base && spec.value <= largest_scheme_value))
            refuse("a RoPE base must be a float32 number above 1, from 1.0000002 to 3.4e38");
        if (spec.kind == PositionSpec::Kind::alibi &&
            !(spec.value >= smallest_alibi_slope && spec.value <= largest_scheme_value))
            refuse("an ALiBi slope must be a normal float32 number above 0, from 1.2e-38 to 3.4e38");
        return spec;
    }
    if (name == "t5") {
        spec.kind = PositionSpec::Kind::t5;
        if (!has_arg) return spec;
        const std::string count = text.substr(colon + 1);
        // Plain digits only: "1e1", "+8", "32.0" and "032" are refused rather than read.
        if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || (count.size() > 1 && count[0] == '0'))
            refuse("'" + count + "' is not a whole number of buckets");
        // anything past 3 digits is too many anyway
        spec.value = count.size() > 3 ? 1000.0 : static_cast<double>(parse_integer(count, "T5's number of buckets"));
        spec.has_value = true;
        if (spec.value < 2 || spec.value > 255)
            refuse("T5 needs 2 to 255 buckets (half are exact distances, which must stay below its max distance 128)");
        return spec;
    }
    refuse("unknown scheme '" + name + "'");
    return spec;  // not reached
}

}  // namespace wai
