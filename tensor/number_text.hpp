// Numbers typed as text: the command line's arguments, the number in a scheme or extension spec,
// and every other number a user types (seeds, lengths, thread counts, lesson 06's positions).
// One rule everywhere: the whole text is the number, and a sign, if any, is one leading '-'.
// Refused: a '+' sign, a space before or after, "0x10", "1_000", "" and anything past the type's
// range, each with a std::invalid_argument that names what the number is for and quotes the text,
// for the caller to pass on or reword.
// Leaves out hexadecimal, digit separators, units and locales (the decimal point is always '.').
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wai {

// A number written in the rule's form whose value the type cannot hold: "99999999999999999999" as a
// 64-bit integer, "1e400" or "1e-400" as a double. A caller with a range of its own catches it to
// refuse the text with that range (every range a user sees is narrower than the type's).
struct NumberPastRange : std::invalid_argument {
    bool huge;      // past the largest magnitude; else nearer zero than a double holds (reals only)
    bool negative;  // the text's sign
    NumberPastRange(const std::string& message, bool huge_, bool negative_)
        : std::invalid_argument(message), huge(huge_), negative(negative_) {}
};

// Decimal digits with an optional leading '-', fitting in 64 bits: "32", "-1", "007". Refused:
// "+5", " 5", "5 ", "3.5", "1e3", "0x40", "-", "". Throws std::invalid_argument("<what> needs an
// integer, got '<text>'"), or NumberPastRange naming the 64-bit range for a number past it.
int64_t parse_integer(const std::string& text, const std::string& what);

// A finite real number: an optional leading '-', digits with an optional '.' and fraction (at
// least one digit in all), then an optional exponent 'e' or 'E' with its own optional sign: "0.5",
// ".5", "2.", "1e-3", "1E+3", "-2". Refused: "+1", " 1", "abc", "", "nan", "inf", "0x1p3". Throws
// std::invalid_argument("<what> needs a number, got '<text>'"), or NumberPastRange for a number
// past a double's range (overflow, or underflow to zero).
double parse_real(const std::string& text, const std::string& what);

}  // namespace wai
