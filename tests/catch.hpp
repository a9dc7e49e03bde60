// Catch2, v2 or v3, behind one include, so the test files are the same for both: Debian 12 ships
// v2 (one header), Debian 13 and Ubuntu 24.04 ship v3 (headers and a library, linked with -lCatch2).
// The Makefile says which in WAI_CATCH_VERSION. The tests are written with v3's names; for v2 this
// header adds the one they use that v2 lacks, ContainsSubstring (v2's string Contains), and for v3
// it brings Approx to the global namespace, where v2 has it.
// Leaves out the reporter and main (tests/main.cpp) and every Catch feature the tests do not use.
#pragma once

#if WAI_CATCH_VERSION == 3
#include <catch2/catch_all.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
namespace Catch::Matchers {
inline StdString::ContainsMatcher ContainsSubstring(const std::string& text,
                                                    CaseSensitive::Choice case_sensitivity = CaseSensitive::Yes) {
    return Contains(text, case_sensitivity);
}
}  // namespace Catch::Matchers
#endif
