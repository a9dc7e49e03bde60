// The checker's verdict (containment/verdict.hpp).
#include "containment/verdict.hpp"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace contain {
namespace {

double clock_seconds() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

std::string random_token() {
    unsigned char bytes[8] = {};
    std::ifstream random("/dev/urandom", std::ios::binary);
    if (!random.read(reinterpret_cast<char*>(bytes), sizeof bytes)) {
        const unsigned long long mix = static_cast<unsigned long long>(clock_seconds() * 1e9) ^ (static_cast<unsigned long long>(getpid()) << 32);
        for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(mix >> (8 * i));
    }
    std::string token;
    for (unsigned char b : bytes) {
        token += "0123456789abcdef"[b >> 4];
        token += "0123456789abcdef"[b & 15];
    }
    return token;
}

std::string verdict_lines(const std::string& text, const std::string& token) {
    std::istringstream lines(text);
    std::string line, kept;
    while (std::getline(lines, line))
        if (line.rfind(token + " ", 0) == 0) kept += line.substr(token.size() + 1) + "\n";
    return kept;
}

}  // namespace contain
