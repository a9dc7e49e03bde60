// Integer and real number parsing with strtoll and strtod, checked to have read the whole text.
// Leaves out locales: the C library's default one reads '.' as the decimal point.
#include "positional/number_text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace wai {

int64_t parse_integer(const std::string& text, const std::string& what) {
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
        throw std::invalid_argument(what + " needs an integer, got '" + text + "'");
    return value;
}

double parse_real(const std::string& text, const std::string& what) {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
        throw std::invalid_argument(what + " needs a number, got '" + text + "'");
    return value;
}

}  // namespace wai
