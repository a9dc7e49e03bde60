// The test program's main: Catch2's session (v2 or v3, tests/catch.hpp), after the start-up every
// whereami program runs (startup/openblas_startup.hpp: OpenBLAS's kernels for this CPU, how waiting
// threads wait), so the tests train at the programs' speed rather than on OpenBLAS's generic
// kernels. Every run ends with one line, "tests: N passed, M failed", counting test cases: a
// listener keeps the run's totals, and main prints the line once Catch's reporter has printed its
// own (listeners hear the end of the run before the reporter). Unless the command line says
// otherwise, the cases run in the order they are declared (v3's default order is random, v2's
// declared: both versions run the same cases in the same order).
// Leaves out tests (tests/test_<folder>.cpp).
#if WAI_CATCH_VERSION == 3
#include <catch2/catch_all.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
using ListenerBase = Catch::EventListenerBase;
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
using ListenerBase = Catch::TestEventListenerBase;
#endif

#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "startup/openblas_startup.hpp"

namespace {

std::optional<Catch::Totals> run_totals;  // set when a run ends

class TotalsListener : public ListenerBase {
public:
    using ListenerBase::ListenerBase;
    void testRunEnded(const Catch::TestRunStats& stats) override { run_totals = stats.totals; }
};

}  // namespace

CATCH_REGISTER_LISTENER(TotalsListener)

int main(int argc, char** argv) {
    wai::prepare_process(argv);  // may start the program again, once, with the same arguments
    std::vector<char*> args(argv, argv + argc);
    static char order_flag[] = "--order", declared[] = "decl";
    bool order_given = false;
    for (int i = 1; i < argc; ++i) order_given = order_given || std::strncmp(argv[i], "--order", 7) == 0;
    if (!order_given) args.insert(args.begin() + 1, {order_flag, declared});
    const int status = Catch::Session().run(static_cast<int>(args.size()), args.data());
    if (run_totals)
        std::cout << "tests: " << run_totals->testCases.passed << " passed, " << run_totals->testCases.failed << " failed"
                  << std::endl;
    return status;
}
