// Integer and real number parsing: the text is checked against the one rule character by
// character, then read: integers by std::from_chars, reals by strtod_l in the "C" locale (the
// correctly rounded reader every C library has; std::from_chars for double is missing from some
// standard libraries, the web build's among them). A real whose value underflows to zero, or
// overflows, is refused as past the range (NumberPastRange); a subnormal one is read (as
// std::from_chars does).
// Leaves out locales: the decimal point is always '.'.
#include "tensor/number_text.hpp"

#include <locale.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace wai {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// How many digits start at `at`.
size_t digits_at(const std::string& text, size_t at) {
    size_t n = 0;
    while (at + n < text.size() && is_digit(text[at + n])) ++n;
    return n;
}

bool looks_like_real(const std::string& text) {
    size_t at = !text.empty() && text[0] == '-' ? 1 : 0;
    const size_t whole = digits_at(text, at);
    at += whole;
    size_t fraction = 0;
    if (at < text.size() && text[at] == '.') {
        fraction = digits_at(text, at + 1);
        at += 1 + fraction;
    }
    if (whole + fraction == 0) return false;
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
        ++at;
        if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
        const size_t exponent = digits_at(text, at);
        if (exponent == 0) return false;
        at += exponent;
    }
    return at == text.size();
}

bool looks_like_integer(const std::string& text) {
    const size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
    return text.size() > sign && digits_at(text, sign) == text.size() - sign;
}

}  // namespace

int64_t parse_integer(const std::string& text, const std::string& what) {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    if (looks_like_integer(text)) {
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc() && stop == end) return value;
        if (error == std::errc::result_out_of_range)
            throw NumberPastRange(what + " needs an integer from -9223372036854775808 to 9223372036854775807 "
                                  "(64 bits), got '" + text + "'", /*huge=*/true, /*negative=*/text[0] == '-');
    }
    throw std::invalid_argument(what + " needs an integer, got '" + text + "'");
}

double parse_real(const std::string& text, const std::string& what) {
    if (looks_like_real(text)) {
        static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
        if (c_locale != locale_t(0)) {
            char* stop = nullptr;
            errno = 0;
            const double value = strtod_l(text.c_str(), &stop, c_locale);
            const bool underflow_to_zero = errno == ERANGE && value == 0.0;
            if (stop == text.c_str() + text.size() && std::isfinite(value) && !underflow_to_zero) return value;
            if (stop == text.c_str() + text.size())
                throw NumberPastRange(what + " needs a number within a double's range (sizes from about 4.9e-324 to 1.8e308), "
                                      "got '" + text + "'", /*huge=*/!underflow_to_zero, text[0] == '-');
        }
    }
    throw std::invalid_argument(what + " needs a number, got '" + text + "'");
}

}  // namespace wai
