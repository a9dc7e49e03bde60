// The test program's main: Catch2 v2's session, after the start-up every whereami program runs
// (tasks/openblas_startup.hpp: OpenBLAS's kernels for this CPU, how waiting threads wait), so the
// tests train at the programs' speed rather than on OpenBLAS's generic kernels; and the console
// reporter extended so that every run ends with one line, "tests: N passed, M failed", counting
// test cases (after Catch's own totals, which is why this is a reporter and not a listener:
// listeners hear the end of the run first).
// Leaves out tests (tests/test_<folder>.cpp).
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_DEFAULT_REPORTER "whereami"
#include <catch2/catch.hpp>

#include <cstdio>

#include "tasks/openblas_startup.hpp"

namespace {

class ClosingLineReporter : public Catch::ConsoleReporter {
public:
    using ConsoleReporter::ConsoleReporter;
    static std::string getDescription() { return "Catch's console reporter, then 'tests: N passed, M failed'"; }
    void testRunEnded(const Catch::TestRunStats& stats) override {
        ConsoleReporter::testRunEnded(stats);
        stream << "tests: " << stats.totals.testCases.passed << " passed, " << stats.totals.testCases.failed
               << " failed" << std::endl;
    }
};

}  // namespace

CATCH_REGISTER_REPORTER("whereami", ClosingLineReporter)

int main(int argc, char** argv) {
    wai::prepare_process(argv);  // may start the program again, once, with the same arguments
    return Catch::Session().run(argc, argv);
}
