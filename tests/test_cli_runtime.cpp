// While a program runs: thread counts from the environment are bounded and checked before OpenMP and
// OpenBLAS start; waiting threads spin briefly unless the user chose how they wait; under an address-
// space or data limit a run ends with one out-of-memory line, never a spin in OpenBLAS's allocator; a
// loss driven to NaN stops training naming the step, and a model whose outputs are NaN is not scored.
// Leaves out the arguments (tests/test_cli_arguments.cpp, tests/test_cli_tools.cpp, tests/test_cli_collectors.cpp).
#include "tests/catch.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "startup/openblas_startup.hpp"
#include "tests/programs.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

TEST_CASE("train_position: a loss driven to NaN by a huge learning rate stops training, naming the step", "[cli]") {
    Folder folder("nan_loss");
    for (const char* run_line : {"lag none 0", "seen rope 1"}) {
        INFO(run_line);
        const std::string weights = folder.file("never_written.safetensors");
        const auto args = tiny_with({"--steps", "50", "--lr", "1e30", "--save", weights}, run_line);
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "(try a smaller --lr)");
        CHECK_THAT(o.err, Matches("train_position: training stopped at step [0-9]+: the loss is -?(nan|inf)[^\n]*\n"));
        CHECK_FALSE(fs::exists(weights));  // nothing is saved from a run that failed
        CHECK_FALSE(fs::exists(weights + ".tmp"));
    }
    // One step: its loss was finite, but the weights it left give NaN outputs. An argmax over NaN would
    // still print a plausible accuracy; the evaluation refuses instead, and no result line is printed.
    const auto one_step = tiny_with({"--steps", "1", "--lr", "1e30"}, "lag none 0");
    check_one_line_refusal(run(folder, "train_position", one_step), 1, "train_position",
                           "evaluation at length 32: the model's outputs hold NaN or infinity");
}

TEST_CASE("bench_step --scaling: waiting threads spin briefly unless the user chose how they wait", "[cli]") {
    Folder folder("bench_scaling");
    // The environment the program is started with, and the wait setting its restarted process runs with.
    const std::pair<const char*, const char*> cases[] = {
        {"env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY", "waiting threads: GOMP_SPINCOUNT=100000\n"},
        {"env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=passive", "waiting threads: OMP_WAIT_POLICY=passive\n"},
        {"env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=50", "waiting threads: GOMP_SPINCOUNT=50\n"},
    };
    // Its busy loop needs a second CPU: where this process may run on one (taskset -c 0), it is refused (below).
    const bool on_one_cpu = wai::max_threads() / 4 < 2;
    for (const auto& [environment, setting] : cases) {
        INFO(environment);
        const Outcome o = script(folder, std::string("exec ") + environment + " " + program_path("bench_step") +
                                             " --scaling 2 --steps 1 --repeats 1");
        INFO("stdout: " << o.out << "stderr: " << o.err);
        if (on_one_cpu) {
            check_one_line_refusal(o, 1, "bench_step", "--scaling needs at least 2 CPUs to run on");
            continue;
        }
        CHECK(o.status == 0);
        CHECK(o.err.empty());
        CHECK_THAT(o.out, ContainsSubstring(setting));
        CHECK_THAT(o.out, Matches("(.|\n)*bench: 2 threads asked / 1 thread: [0-9.]+ as the machine is, [0-9.]+ with one core busy\n(.|\n)*"));
    }
    // On one CPU there is no core to spare for the busy loop: refused before any timing.
    const Outcome one_cpu = script(folder, "exec taskset -c 0 " + program_path("bench_step") + " --scaling 2 --steps 1 --repeats 1");
    check_one_line_refusal(one_cpu, 1, "bench_step", "--scaling needs at least 2 CPUs to run on");
}

TEST_CASE("thread counts in the environment are bounded, and checked before OpenMP and OpenBLAS start", "[cli]") {
    Folder folder("thread_environment");
    const std::vector<std::string> programs = {"train_position " + tiny_line("lag rope 0"), "lessons/03_sinusoids",
                                               "bench_step --steps 1 --repeats 1", "collect_results --prune runs 0"};
    int cases = 0;
    for (const char* variable : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"})
        for (const std::string value : {"abc", "", "0", "-3", "+2", " 2", "2 ", "4,2", "0x2", "99999999", "\xff\n"})
            for (const std::string& program : programs) {
                INFO(variable << "='" << value << "' " << program);
                const std::string name = fs::path(words(program)[0]).filename().string();
                const Outcome o = script(folder, std::string(variable) + "=" + quoted(value) + " exec " +
                                                     quoted(build_dir) + "/" + program);
                check_one_line_refusal(o, 2, name, std::string(variable) + " is '");
                check_one_line_refusal(o, 2, name, "a thread count must be a whole number from 1 to ");
                ++cases;
            }
    CHECK(cases == 3 * 11 * 4);
    CHECK(script(folder, "OMP_NUM_THREADS=1 exec " + program_path("train_position") + " " + tiny_line("lag rope 0")).status == 0);
    // OMP_THREAD_LIMIT caps OpenMP's regions; OpenBLAS, sized from the CPUs or OMP_NUM_THREADS, is held to
    // it too (asked for more threads than a region can have, its threaded products waited for ever).
    // The most --threads takes is 4 x the CPUs this process may run on: 4 under taskset -c 0.
    for (const std::string& threads : {std::string(), std::string(" --threads 2"), " --threads " + std::to_string(wai::max_threads())}) {
        INFO("OMP_THREAD_LIMIT=1, OMP_NUM_THREADS=2," << threads);
        const Outcome o = script(folder, "OMP_THREAD_LIMIT=1 OMP_NUM_THREADS=2 exec " + program_path("train_position") +
                                             " lag rope 0 --steps 1 --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2 --verbose" + threads);
        INFO("stderr: " << o.err);
        CHECK(o.status == 0);
        CHECK(holds(o.err, "; 1 OpenMP thread, OpenBLAS 1 ("));
    }
}

TEST_CASE("under an address-space limit a run ends with one out-of-memory line, never a spin in OpenBLAS", "[cli]") {
    // A sanitizer build maps terabytes of shadow memory at start-up, which no such limit allows.
    if (fs::path(build_dir).filename() != "build") return;
    Folder folder("address_space");
    // Below some limit the dynamic loader itself cannot start the program (Debian 13's glibc 2.41
    // on an AMD EPYC Zen 5: "cannot allocate TLS data structures for initial thread", exit code 127,
    // at 49 MiB): main never runs, so there is nothing the program could say. Such a limit is
    // counted apart; every limit the program does start under must give the one line, and there
    // must be at least four of them.
    int started = 0, below_loader = 0;
    for (const char* limit : {"50000", "100000", "200000", "400000", "550000"}) {
        INFO("ulimit -v " << limit);
        // Two threads whatever the machine's load (a busy core would make it one: startup/thread_policy.hpp).
        const Outcome o = script(folder, std::string("ulimit -v ") + limit +
                                             "; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 60 " +
                                             program_path("train_position") + " lag rope 0 --steps 5");
        if (o.status == 127 && o.err.rfind("train_position", 0) != 0) {  // the program exits 0, 1, 2 or 130, never 127
            ++below_loader;
            continue;
        }
        ++started;
        check_one_line_refusal(o, 1, "train_position", "out of memory: the address-space limit (ulimit -v) is ");
        check_one_line_refusal(o, 1, "train_position", "a run needs at least ");
    }
    INFO(below_loader << " of the limits were below what the dynamic loader needs");
    CHECK(started >= 4);
    // Enough for the default run, not for one a hundred times its size: the run's own allocation fails.
    const std::string enough =
        "ulimit -v 1000000; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 120 " + program_path("train_position");
    CHECK(script(folder, enough + " lag rope 0 --steps 5").status == 0);
    check_one_line_refusal(script(folder, enough + " lag rope 0 --steps 2 --batch 512 --dim 512 --mlp 2048 --eval-seqs 512"),
                           1, "train_position", "out of memory: this run's sizes");
    // bench_step's sizes go far past any machine's memory too: one line, never an abort.
    check_one_line_refusal(script(folder, "ulimit -v 1000000; OMP_NUM_THREADS=1 exec timeout 120 " + program_path("bench_step") +
                                              " --dim 1024 --length 1024 --batch 512 --steps 1 --repeats 1"),
                           1, "bench_step", "out of memory for these sizes");
    // One thread needs less: the same small limit then suffices.
    CHECK(script(folder, "ulimit -v 550000; OMP_NUM_THREADS=1 exec timeout 60 " + program_path("train_position") +
                             " lag rope 0 --steps 5").status == 0);
    // A data limit (ulimit -d) counts OpenBLAS's buffers too.
    // OpenBLAS counts the machine's CPUs when it loads, not the ones this process may run on: on one CPU
    // of two or more (taskset -c 0) it still maps a buffer for each, which must fit too.
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
        check_one_line_refusal(script(folder, "ulimit -d 200000; unset OMP_NUM_THREADS; exec taskset -c 0 timeout 60 " +
                                                  program_path("train_position") + " lag rope 0 --steps 5"),
                               1, "train_position", "out of memory: the data limit (ulimit -d) is ");
    check_one_line_refusal(script(folder, "ulimit -d 200000; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 60 " +
                                              program_path("train_position") +
                                              " lag rope 0 --steps 5"),
                           1, "train_position", "out of memory: the data limit (ulimit -d) is ");
}

TEST_CASE("train_position prints the same line on 1, 2 and 3 threads, and --verbose says how many it took and why", "[cli]") {
    // A batch of 64: 4 micro-batches of 16 (fast/split_step.hpp), on as many threads as there are.
    Folder folder("threads_same_line");
    const std::string line = "lag rope 0 --steps 20 --batch 64 --dim 16 --mlp 32 --eval-seqs 8 --verbose";
    const Outcome one = run(folder, "train_position", words(line + " --threads 1"), "", "one");
    REQUIRE(one.status == 0);
    CHECK(holds(one.err, "1 OpenMP thread, OpenBLAS 1 (1 asked with --threads); a step in 4 micro-batches of 16 sequences, "
                         "1 at a time"));
    for (const char* threads : {"2", "3"}) {
        INFO(threads << " threads");
        const Outcome many = run(folder, "train_position", words(line + " --threads " + threads), "", "many");
        REQUIRE(many.status == 0);
        CHECK(many.out == one.out);
        CHECK(holds(many.err, std::string("(") + threads + " asked with --threads"));
    }
    // Without --threads or OMP_NUM_THREADS: every CPU, no more than those found free.
    const Outcome chosen = script(folder, "unset OMP_NUM_THREADS; exec " + program_path("train_position") + " " + line, "default");
    REQUIRE(chosen.status == 0);
    CHECK(chosen.out == one.out);
    CHECK(holds(chosen.err, ", every CPU this process may run on"));
    // The plain kernels take the whole batch at once, each op on the threads: one unless asked for more.
    const Outcome plain = script(folder, "unset OMP_NUM_THREADS; exec " + program_path("train_position") + " " + line +
                                             " --kernels plain", "plain");
    REQUIRE(plain.status == 0);
    CHECK(holds(plain.err, "1 OpenMP thread, OpenBLAS 1 (1, the plain kernels' choice"));
    CHECK(holds(plain.err, "a step on the whole batch, each op on 1 thread\n"));
    const Outcome plain_two = run(folder, "train_position", words(line + " --threads 2 --kernels plain"), "", "plain_two");
    REQUIRE(plain_two.status == 0);
    CHECK(plain_two.out == plain.out);
    CHECK(holds(plain_two.err, "(2 asked with --threads"));
}

TEST_CASE("train_position --verbose says which kernels run and where OpenBLAS's came from, and changes no figure; kernels OpenBLAS did not take are refused", "[cli]") {
    Folder folder("verbose");
    const Outcome quiet = run(folder, "train_position", tiny_with({"--threads", "1"}, "lag rope 0"), "", "quiet");
    const Outcome told = run(folder, "train_position", tiny_with({"--threads", "1", "--verbose"}, "lag rope 0"), "", "told");
    REQUIRE(told.status == 0);
    CHECK(told.out == quiet.out);  // the same result line
    CHECK(told.err_lines() == 1);
    CHECK_THAT(told.err, Matches("train_position: --kernels fast; OpenBLAS [A-Za-z0-9]+ kernels: [^\n]+; 1 OpenMP thread, "
                                 "OpenBLAS 1 \\(1 asked with --threads\\); a step in 1 micro-batch of [0-9]+ sequences, 1 at "
                                 "a time \\(fast/split_step.hpp\\)\n"));
#if defined(__x86_64__)  // OpenBLAS's x86-64 kernel names
    // Named in the environment, the kernels say so, and what OpenBLAS alone would have picked.
    const Outcome named = script(folder, "OPENBLAS_CORETYPE=Prescott " + program_path("train_position") + " " +
                                             tiny_line("lag rope 0", {"--threads", "1", "--verbose", "--kernels", "plain"}),
                                 "named");
    REQUIRE(named.status == 0);
    CHECK_THAT(named.err, ContainsSubstring("--kernels plain; OpenBLAS Prescott kernels: named by OPENBLAS_CORETYPE=Prescott "
                                            "in the environment; OpenBLAS alone would pick "));
    // Named without regard to case, as OpenBLAS reads it.
    CHECK(script(folder, "OPENBLAS_CORETYPE=prescott " + program_path("train_position") + " " + tiny_line("lag rope 0")).status == 0);
    // Every x86-64 name: the run, or a one-line refusal (a name OpenBLAS did not take, or kernels it took
    // that this CPU cannot run: 0.3.21 takes SkylakeX on a CPU without AVX-512), never an illegal instruction.
    for (const char* kernels : {"Prescott", "Core2", "Nehalem", "Sandybridge", "Haswell", "Zen", "Bulldozer", "Excavator",
                                "SkylakeX", "Cooperlake", "SapphireRapids"}) {
        const Outcome o = script(folder, std::string("OPENBLAS_CORETYPE=") + kernels + " exec " + program_path("train_position") +
                                             " " + tiny_line("lag rope 0"), "every_name");
        INFO(kernels << ": exit status " << o.status << ", stderr: " << o.err);
        if (o.status != 0) {
            check_one_line_refusal(o, 2, "train_position", "OPENBLAS_CORETYPE is '" + std::string(kernels) + "'");
            CHECK((holds(o.err, "which OpenBLAS did not take") || holds(o.err, "but this CPU cannot run those kernels")));
        }
        if (std::string(kernels) == "SkylakeX" && !__builtin_cpu_supports("avx512f")) CHECK(o.status == 2);
    }
#endif
    // A name OpenBLAS does not take: it would run its own choice without a word; every program refuses.
    for (const auto& [program, arguments] : std::vector<std::pair<std::string, std::string>>{
             {"train_position", tiny_line("lag rope 0")},
             {"bench_step", "--steps 1 --repeats 1 --kernels fast"},
             {"collect_results", "--prune runs 0"}}) {
        INFO(program << " " << arguments);
        const Outcome o = script(folder, "OPENBLAS_CORETYPE='No such kernels' exec " + program_path(program) + " " + arguments, "not_taken");
        check_one_line_refusal(o, 2, program, "OPENBLAS_CORETYPE is 'No such kernels', which OpenBLAS did not take (a name it "
                                              "does not know, or kernels this CPU cannot run): it runs its ");
        CHECK(o.out.empty());
    }
}
