// Tests of the start-up's facts about the OpenBLAS it runs with: the room the address-space check
// keeps for each thread's buffer (startup/startup_checks.hpp) is what this library maps, on this
// machine's architecture and OpenBLAS version; the kernel rule leaves an explicit choice alone; and
// the kernels' origin is said.
// Leaves out the checks through the programs (tests/test_cli_runtime.cpp).
#include "tests/catch.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "startup/openblas_startup.hpp"
#include "startup/startup_checks.hpp"

extern "C" void* blas_memory_alloc(int procpos);
extern "C" void blas_memory_free(void* buffer);
extern "C" char* openblas_get_config(void);

namespace {

uint64_t mapped_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024;
    return 0;
}

}  // namespace

TEST_CASE("the room kept for each OpenBLAS buffer is what this OpenBLAS maps for one", "[startup]") {
    // Buffers the pool already holds are handed out again without a new mapping: take buffers until
    // one is mapped afresh, and measure that one.
    std::vector<void*> held;
    uint64_t fresh = 0;
    for (int taken = 0; taken < 16 && fresh == 0; ++taken) {
        const uint64_t before = mapped_bytes();
        held.push_back(blas_memory_alloc(0));
        const uint64_t grown = mapped_bytes() - before;
        if (grown >= (uint64_t(1) << 20)) fresh = grown;
    }
    for (void* buffer : held) blas_memory_free(buffer);
    INFO(openblas_get_config() << ": a fresh buffer maps " << fresh << " bytes; the start-up keeps "
                               << wai::blas_buffer_bytes);
    REQUIRE(fresh > 0);
    CHECK(fresh <= wai::blas_buffer_bytes);
    CHECK(fresh > wai::blas_buffer_bytes * 9 / 10);  // not so far above it that the check refuses runs that fit
}

TEST_CASE("the kernels OpenBLAS runs are named, and an OPENBLAS_CORETYPE given is honoured", "[startup]") {
    const std::string kernels = wai::blas_kernels();
    INFO(openblas_get_config());
    CHECK_FALSE(kernels.empty());
    if (const char* chosen = std::getenv("OPENBLAS_CORETYPE"); chosen != nullptr && *chosen != '\0') {
        // OpenBLAS spells the names its own way ("haswell" -> "Haswell"): compare without case.
        std::string lower_kernels = kernels, lower_chosen = chosen;
        for (char& c : lower_kernels) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (char& c : lower_chosen) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        CHECK(lower_kernels == lower_chosen);
    }
#if defined(__x86_64__)
    // The start-up's rule: never the generic kernels on a CPU with AVX2 or AVX-512, unless the user named them.
    const std::string origin = wai::blas_kernels_origin();
    INFO(origin);
    if (__builtin_cpu_supports("avx2") && origin.rfind("named by OPENBLAS_CORETYPE=", 0) != 0) CHECK(kernels != "Prescott");
#endif
}

TEST_CASE("the start-up's rule names AVX-512 or AVX2 kernels only where OpenBLAS alone fell back to its generic ones", "[startup]") {
    // The CPU is faked: the rule is a function of OpenBLAS's own pick and the CPU's features.
    CHECK(std::string(wai::rule_kernels("Prescott", true, true)) == "SkylakeX");
    CHECK(std::string(wai::rule_kernels("Prescott", false, true)) == "Haswell");
    CHECK(wai::rule_kernels("Prescott", false, false) == nullptr);  // a CPU without AVX2: the generic kernels suit it
    for (const char* own : {"SkylakeX", "Haswell", "Zen", "Sandybridge", "Nehalem", "Core2", "ARMV8", "NEOVERSEN1"})
        for (const bool avx512 : {false, true})
            for (const bool avx2 : {false, true}) {
                INFO(own << ", AVX-512 " << avx512 << ", AVX2 " << avx2);
                CHECK(wai::rule_kernels(own, avx512, avx2) == nullptr);  // OpenBLAS knew the CPU: its choice stands
            }
}

TEST_CASE("where the kernels came from: the environment's choice, and what OpenBLAS alone would pick", "[startup]") {
    // This process's own kernels were fixed when OpenBLAS loaded; the origin reads the environment,
    // and asks a copy of this program, started without OPENBLAS_CORETYPE, for OpenBLAS's own pick.
    const char* before = std::getenv("OPENBLAS_CORETYPE");
    const std::string saved = before != nullptr ? before : "";
    const char* by_rule = std::getenv("WAI_BLAS_KERNELS_BY_RULE");
    const std::string saved_rule = by_rule != nullptr ? by_rule : "";
    unsetenv("WAI_BLAS_KERNELS_BY_RULE");

    unsetenv("OPENBLAS_CORETYPE");
    CHECK(wai::blas_kernels_origin() == "OpenBLAS's own choice for this CPU");

    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    const std::string origin = wai::blas_kernels_origin();
    INFO(origin);
    CHECK_THAT(origin, Catch::Matchers::StartsWith("named by OPENBLAS_CORETYPE=Haswell in the environment; OpenBLAS alone would pick "));
    CHECK_THAT(origin, !Catch::Matchers::ContainsSubstring("could not be asked"));
    CHECK(origin.size() > std::strlen("named by OPENBLAS_CORETYPE=Haswell in the environment; OpenBLAS alone would pick "));

    // The rule's marker holds the name it set: the same name is the rule's, another the user's (a
    // program started by one the rule re-executed inherits the marker, then may be given other kernels).
    setenv("WAI_BLAS_KERNELS_BY_RULE", "Haswell", 1);
    CHECK_THAT(wai::blas_kernels_origin(), Catch::Matchers::StartsWith("named by the start-up's rule"));
    setenv("WAI_BLAS_KERNELS_BY_RULE", "SkylakeX", 1);
    CHECK_THAT(wai::blas_kernels_origin(), Catch::Matchers::StartsWith("named by OPENBLAS_CORETYPE=Haswell in the environment; "));
    setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    CHECK_THAT(wai::blas_kernels_origin(), Catch::Matchers::StartsWith("named by OPENBLAS_CORETYPE=Prescott in the environment; "));

    if (before != nullptr) setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
    else unsetenv("OPENBLAS_CORETYPE");
    if (by_rule != nullptr) setenv("WAI_BLAS_KERNELS_BY_RULE", saved_rule.c_str(), 1);
    else unsetenv("WAI_BLAS_KERNELS_BY_RULE");
}
