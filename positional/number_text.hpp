// Numbers typed as text: the command line's arguments and the number in a scheme or extension spec.
// The whole text must be the number; anything else is refused with a std::invalid_argument that
// names what the number is for and quotes the text, for the caller to pass on or reword.
// Leaves out hexadecimal integers, digit separators and units.
#pragma once
#include <cstdint>
#include <string>

namespace wai {

// A base-10 integer as std::strtoll reads it (spaces, a sign, then digits) that fits in 64 bits: "32", "-1".
// Refused: "3.5", "1e3", "0x40", "", a number past 64 bits. Throws
// std::invalid_argument("<what> needs an integer, got '<text>'").
int64_t parse_integer(const std::string& text, const std::string& what);

// A finite real number as std::strtod reads it (spaces first too): "0.5", "1e-3", "-2". Refused: "abc", "", "nan",
// "inf", a number past the range of a double. Throws
// std::invalid_argument("<what> needs a number, got '<text>'").
double parse_real(const std::string& text, const std::string& what);

}  // namespace wai
