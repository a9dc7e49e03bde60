// A weight file's header as JSON, and the refusal every check of a weight file ends in. The JSON is
// built in time linear in its size however many entries it holds, refusing what the reference's
// parser refuses (invalid JSON, a NUL byte) and what would be dropped or crash here (a name given
// twice in one object, lists and objects nested past max_header_depth).
// Leaves out what the entries mean (files/weights_file.cpp checks them).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "files/weights_file.hpp"

namespace wai::weights_header {

inline const char* const layout =
    "a safetensors file is an 8-byte little-endian header length N, N bytes of JSON, then the data";

// Throws "weights file 'PATH': PROBLEM; ACCEPTED", each NUL byte written \x00 (nul_shown).
[[noreturn]] inline void refuse(const std::string& path, const std::string& problem, const std::string& accepted) {
    throw std::runtime_error(nul_shown("weights file '" + path + "': " + problem + "; " + accepted));
}

// The header `text` of the weight file at `path` as JSON, or refuse(...) saying why it cannot be.
nlohmann::json parse(std::string_view text, const std::string& path);

}  // namespace wai::weights_header
