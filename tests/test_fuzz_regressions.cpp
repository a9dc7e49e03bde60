// Replays every input in tests/fuzz/regressions/ through the safetensors reader, with the ordinary
// g++ build (and its sanitizer builds), so plain `make test` covers what `make fuzz` once found: each
// input must be refused with a std::runtime_error (or read), never crash or throw anything else.
// The inputs that found a bug are also checked for the message of its fix, and a header nested tens of
// thousands of levels deep (which crashed the reader with a stack overflow) is made here, not kept in git.
// Leaves out fuzzing itself (make fuzz, tests/fuzz/).
#include "tests/catch.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

#include "files/weights_file.hpp"

using namespace wai;

TEST_CASE("fuzz regressions: every input is read or refused with a runtime_error", "[weights_file][fuzz]") {
    // The fix each bug-finding input checks for; a new input needs no entry here to be replayed.
    const std::map<std::string, std::string> fixed = {
        // nlohmann's out_of_range (a number past a double, "1891e3904") escaped as a non-runtime_error.
        {"json_number_overflow.safetensors", "the header's JSON cannot be read"},
        // shape [2^62, 2^62, 0]: zero bytes, so accepted, then Shape::numel overflowed int64 (UBSan).
        {"shape_product_overflow.safetensors", "besides a zero, sizes that multiply to less than 2^63"},
    };
    int replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(WAI_FUZZ_REGRESSIONS_DIR)) {
        const std::string name = entry.path().filename().string();
        INFO("input " << name);
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::string message = "(read without complaint)";
        try {
            parse_weights_file(bytes, name);
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
        // Anything other than a runtime_error propagates and fails the test case, as it should.
        const auto known = fixed.find(name);
        if (known != fixed.end()) CHECK_THAT(message, Catch::Matchers::ContainsSubstring(known->second));
        ++replayed;
    }
    CHECK(replayed >= static_cast<int>(fixed.size()));
}

TEST_CASE("fuzz regressions: a header nested 60,000 levels deep is refused, not a crash", "[weights_file][fuzz]") {
    // 120 kB of brackets in a shape, in data_offsets, in the metadata, as a tensor entry: before the depth
    // limit the JSON value was built, copied and destroyed recursively, and the stack overflowed.
    const int levels = 60000;
    const std::string lists = std::string(levels, '[') + std::string(levels, ']');
    std::string objects;
    for (int i = 0; i < levels; ++i) objects += "{\"a\":";
    objects += "0" + std::string(levels, '}');
    const std::string headers[] = {
        R"({"w":{"dtype":"F32","shape":)" + lists + R"(,"data_offsets":[0,0]}})",
        R"({"w":{"dtype":"F32","shape":[0],"data_offsets":)" + lists + "}}",
        R"({"__metadata__":)" + objects + "}",
        R"({"w":)" + objects + "}",
        lists,
    };
    for (const std::string& header : headers) {
        INFO(header.substr(0, 40));
        std::string bytes(8, '\0');
        const uint64_t length = header.size();
        std::memcpy(bytes.data(), &length, 8);
        bytes += header;
        std::string message;
        try {
            parse_weights_file(bytes, "deep.safetensors");
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
        CHECK_THAT(message, Catch::Matchers::ContainsSubstring("the header nests lists and objects more than 128 levels deep"));
    }
}
