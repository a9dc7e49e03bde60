// bench_step's flags, read and refused as bench/bench_flags.hpp says.
#include "bench/bench_flags.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "tensor/number_text.hpp"
#include "startup/output_check.hpp"
#include "startup/openblas_startup.hpp"

namespace wai::bench {

[[noreturn]] void refuse(const std::string& problem) {
    std::fprintf(stderr, "bench_step: %s (the flags are --steps N, --repeats N, --threads N, --kernels plain|fast|both, "
                         "--scaling N, --train-step N, --shapes N, --dim N, --layers N, --length N, --batch N)\n", one_line(problem).c_str());
    std::exit(2);
}

// The value given for `name`, or nullptr; every flag is checked to be known, given once, and to have a value.
const char* flag_value(int argc, char** argv, const std::string& name) {
    for (int i = 1; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag != "--steps" && flag != "--repeats" && flag != "--threads" && flag != "--kernels" && flag != "--scaling" && flag != "--train-step" && flag != "--shapes" &&
            flag != "--dim" && flag != "--layers" && flag != "--length" && flag != "--batch")
            refuse("unknown argument '" + flag + "'");
        if (i + 1 >= argc) refuse(flag + " needs a value");
        if (argv[i + 1][0] == '\0') refuse(flag + " needs a value, got an empty one");
        if (const std::string next = argv[i + 1]; next.size() > 2 && next.rfind("--", 0) == 0 && std::isalpha(static_cast<unsigned char>(next[2])))
            refuse(flag + " needs a value, got the flag '" + next + "'");  // "--5" is a bad number, said as such below
        for (int j = 1; j < i; j += 2)
            if (flag == argv[j]) refuse(flag + " is given twice");
    }
    for (int i = 1; i + 1 < argc; i += 2)
        if (argv[i] == name) return argv[i + 1];
    return nullptr;
}

std::vector<Kernels> parse_kernels_flag(int argc, char** argv) {
    const char* value = flag_value(argc, argv, "--kernels");
    const std::string text = value ? value : "both";
    if (text == "both") return {Kernels::fast, Kernels::plain};
    if (text == "plain" || text == "fast") return {parse_kernels(text)};
    refuse("--kernels needs plain, fast or both, got '" + text + "'");
}

int parse_flag(int argc, char** argv, const std::string& name, int fallback) {
    const char* text = flag_value(argc, argv, name);
    if (text == nullptr) return fallback;
    try {
        if (name == "--threads") return parse_thread_count(text, name);
        const int64_t value = parse_integer(text, name);
        if (name == "--train-step") {
            if (value >= 1 && value <= 64) return static_cast<int>(value);
        } else if (name == "--scaling") {
            if (value >= 2 && value <= 64) return static_cast<int>(value);
        } else if (value >= 1 && value <= 100000) {
            return static_cast<int>(value);
        }
    } catch (const std::invalid_argument& e) {
        if (name == "--threads") refuse(e.what());
    }
    if (name == "--train-step") refuse("--train-step needs a thread count from 1 to 64, got '" + std::string(text) + "'");
    if (name == "--scaling") refuse("--scaling needs a thread count from 2 to 64, got '" + std::string(text) + "'");
    refuse(name + " needs a whole number from 1 to 100000, got '" + text + "'");
}

// `name`'s value from `low` to `high` (and even, when asked), else refused; `fallback` when not given.
int64_t size_flag(int argc, char** argv, const std::string& name, int64_t fallback, int64_t low, int64_t high, bool even) {
    const char* text = flag_value(argc, argv, name);
    if (text == nullptr) return fallback;
    int64_t value = 0;
    try {
        value = parse_integer(text, name);
    } catch (const std::invalid_argument&) {
        value = low - 1;
    }
    if (value < low || value > high || (even && value % 2 != 0))
        refuse(name + " needs a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
               (even ? " (even: RoPE turns pairs)" : "") + ", got '" + text + "'");
    return value;
}

}  // namespace wai::bench
