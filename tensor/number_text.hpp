// Numbers typed as text: the command line's arguments, the number in a scheme or extension spec,
// and every other number a user types (seeds, lengths, thread counts, lesson 06's positions).
// One rule everywhere: the whole text is the number, and a sign, if any, is one leading '-'.
// Refused: a '+' sign, a space before or after, "0x10", "1_000", "" and anything past the type's
// range, each with a std::invalid_argument that names what the number is for and quotes the text,
// for the caller to pass on or reword.
// Leaves out hexadecimal, digit separators, units and locales (the decimal point is always '.').
#pragma once
#include <cstdint>
#include <string>

namespace wai {

// Decimal digits with an optional leading '-', fitting in 64 bits: "32", "-1", "007". Refused:
// "+5", " 5", "5 ", "3.5", "1e3", "0x40", "-", "", a number past 64 bits. Throws
// std::invalid_argument("<what> needs an integer, got '<text>'"), naming the range for a number past 64 bits.
int64_t parse_integer(const std::string& text, const std::string& what);

// A finite real number: an optional leading '-', digits with an optional '.' and fraction (at
// least one digit in all), then an optional exponent 'e' or 'E' with its own optional sign: "0.5",
// ".5", "2.", "1e-3", "1E+3", "-2". Refused: "+1", " 1", "abc", "", "nan", "inf", "0x1p3", a number
// past the range of a double. Throws std::invalid_argument("<what> needs a number, got '<text>'").
double parse_real(const std::string& text, const std::string& what);

}  // namespace wai
