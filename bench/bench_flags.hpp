// bench_step's flags: --steps N, --repeats N, --threads N, --kernels plain|fast|both, --scaling N (2 to 64),
// --shapes N and the sizes --dim N (2 to 4096, even), --layers N (1 to 64), --length N (4 to 4096:
// longer than the lag) and --batch N (1 to 4096), each at most once. Anything else, a flag without its value, an empty value, or a value
// out of its range ("5x", "+5", " 5" included: tensor/number_text.hpp's rule) is refused with one
// line and exit status 2. Leaves out what the flags mean together (bench_step.cpp says which combine).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "startup/kernels_choice.hpp"

namespace wai::bench {

// One line on stderr naming the problem and the flags, then exit status 2.
[[noreturn]] void refuse(const std::string& problem);

// The value given for `name`, or nullptr; every flag is checked to be known, given once, and to have a value.
const char* flag_value(int argc, char** argv, const std::string& name);

// --kernels: fast, plain, or both (fast first), by default both.
std::vector<Kernels> parse_kernels_flag(int argc, char** argv);

// A count flag from 1 to 100000 (--threads as thread_policy reads it), `fallback` when not given.
int parse_flag(int argc, char** argv, const std::string& name, int fallback);

// The model's and batch's sizes: the chapter's by default.
struct Sizes {
    int64_t dim = 64, layers = 2, length = 32, batch = 64;
};

// `name`'s value from `low` to `high` (and even, when asked), else refused; `fallback` when not given.
int64_t size_flag(int argc, char** argv, const std::string& name, int64_t fallback, int64_t low, int64_t high, bool even = false);

}  // namespace wai::bench
