// make's own variables through the real Makefile (make -C the source tree, as a user types it): a
// value with shell or make characters (';', a backtick, "$(...)", '#', ':', '%', a blank, a newline,
// a leading '-') in any variable a user gives (RESULTS, SEEDS, JOBS, RUN_FLAGS, SLURM_FLAGS,
// SCHEDULER, KERNELS, EXERCISE, TASK, SEED, STEPS, the time limits, EXTENSION_LENGTHS, BUILD,
// BENCH_SIZES, BENCH_THREADS, WEB_PORT, RELEASE; SEEDS with a leading zero, a number beyond what its
// program reads too), for the goals that use it and for a goal that does not, a name the Makefile
// does not take, and RESULTS or BUILD through a link to the checkout stop make with one line naming
// the variable, run nothing of its own and make no folder (experiment/make_variables.mk); make
// experiment's and experiment-extension's inner steps (experiment-locked, extension-runs, ...) typed
// by hand are refused before they prune; RUN_FLAGS no run could start with stop make experiment
// before its prune.
// Leaves out make's goals (tests/test_cli_make.cpp) and the experiment's runs themselves
// (tests/experiment_resume.sh, make test-experiment).
#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/programs.hpp"  // and the test framework

using namespace wai::testing;
namespace fs = std::filesystem;

TEST_CASE("make: a variable holding shell or make characters, a name the Makefile does not take, or a folder through a link to the checkout is refused in one line naming it, and runs nothing", "[cli]") {
    Folder folder("make_variables");
    const std::string results = folder.file("results");
    const std::string canary = folder.file("pwned");
    const std::string touch = "touch " + canary;
    struct Case {
        std::string goal, variable, value;
        std::vector<std::string> others;
    };
    const std::vector<Case> cases = {
        {"experiment", "RESULTS", results + ";" + touch, {}},
        {"experiment", "RESULTS", results + "`" + touch + "`", {}},
        {"experiment", "RESULTS", results + "$(shell " + touch + ")", {}},
        {"experiment", "RESULTS", results + "$$(" + touch + ")", {}},
        {"experiment", "RESULTS", results + "#x", {}},
        {"experiment", "RESULTS", results + ":x", {}},
        {"experiment", "RESULTS", results + "%x", {}},
        {"experiment", "RESULTS", results + " " + canary, {}},
        {"experiment", "RESULTS", results + " ", {}},
        {"experiment", "RESULTS", results + "\n" + touch, {}},
        {"experiment", "RESULTS", "-" + results, {}},
        {"experiment-extension", "RESULTS", results + ";" + touch, {}},
        {"plots", "RESULTS", results + "&&" + touch, {}},
        {"experiment-collect", "RESULTS", results + "|" + touch, {}},
        {"experiment-jobs", "RESULTS", results + ">" + canary, {}},
        {"experiment-runs", "RESULTS", results + ";" + touch, {}},
        {"help", "RESULTS", results + ";" + touch, {}},
        {"plots", "SEEDS", "0;" + touch, {}},
        {"experiment", "SEEDS", "0 $(shell " + touch + ")", {}},
        {"experiment", "SEEDS", "0\n1", {}},
        {"experiment", "JOBS", "2;" + touch, {}},
        {"experiment", "RUN_FLAGS", "--steps 5;" + touch, {}},
        {"experiment", "RUN_FLAGS", "--steps 5\n" + touch, {}},
        {"experiment", "RUN_FLAGS", "--steps `" + touch + "`", {}},
        {"experiment-runs", "RUN_FLAGS", "--steps $(" + touch + ")", {}},
        {"experiment-extension", "EXTENSION_LENGTHS", "32 64;" + touch, {}},
        {"experiment", "SCHEDULER", "slurm;" + touch, {}},
        {"experiment", "SLURM_FLAGS", "--time=5;" + touch, {}},
        {"bench", "KERNELS", "both;" + touch, {}},
        {"bench", "KERNELS", "$(shell " + touch + ")", {}},
        {"exercise", "EXERCISE", "rope_rotation x;" + touch, {}},
        {"exercise", "EXERCISE", "rope_rotation;" + touch, {}},
        {"exercise-train", "EXERCISE", "rope_rotation `" + touch + "`", {}},
        {"exercise-train", "TASK", "lag`" + touch + "`", {"EXERCISE=rope_rotation"}},
        {"exercise-train", "TASK", "lag " + canary, {"EXERCISE=rope_rotation"}},
        {"exercise-train", "SEED", "0;" + touch, {"EXERCISE=rope_rotation"}},
        {"exercise-train", "STEPS", "$(shell " + touch + ")", {"EXERCISE=rope_rotation"}},
        {"exercise", "EXERCISE_SECONDS", "5;" + touch, {"EXERCISE=rope_rotation"}},
        {"exercise-train", "EXERCISE_TRAIN_SECONDS", "5 " + canary, {"EXERCISE=rope_rotation"}},
        {"exercise", "EXERCISE_FILE_MIB", "64;" + touch, {"EXERCISE=rope_rotation"}},
        {"exercise", "EXERCISE_FILE_MIB", "0", {"EXERCISE=rope_rotation"}},
        {"exercise", "EXERCISE_CONTAIN", "subreaper;" + touch, {"EXERCISE=rope_rotation"}},
        {"exercise", "EXERCISE_BUILD", results + ";" + touch, {"EXERCISE=rope_rotation"}},
        {"fuzz", "FUZZ_SECONDS", "1;" + touch, {}},
        {"fuzz", "FUZZ_MAX_LEN", "$(shell " + touch + ")", {}},
        {"help", "BUILD", "build;" + touch, {}},
        {"bench", "BENCH_SIZES", "--dim 8;" + touch, {}},
        {"bench", "BENCH_SIZES", "$(shell " + touch + ")", {}},
        {"bench-torch", "BENCH_SIZES", "--dim 8' ; " + touch + " ; echo '", {}},
        {"bench-torch", "BENCH_THREADS", "2' ; " + touch + " ; echo '", {}},
        {"bench-torch", "BENCH_THREADS", "65", {}},
        {"bench-torch", "BENCH_THREADS", "0", {}},
        {"web-serve", "WEB_PORT", "8000;" + touch, {}},
        {"web-serve", "WEB_PORT", "8000 " + canary, {}},
        {"web-serve", "WEB_PORT", "65536", {}},      // web_serve.mjs would refuse it only after make web's build
        {"web-serve", "WEB_PORT", "000008000", {}},  // as would more than five digits
        {"fuzz", "FUZZ_SECONDS", "4294967297", {}},  // libFuzzer reads an int: 1 s
        {"exercise", "EXERCISE_SECONDS", "1000000000", {"EXERCISE=rope_rotation"}},
        {"exercise-train", "STEPS", "100001", {"EXERCISE=rope_rotation"}},  // past what the program takes: its line, then make's
        {"experiment", "JOBS", "12345678901", {}},
        {"experiment", "JOBS", "65538", {}},  // past the 65536 tokens make's job-server pipe holds: make hung
        {"experiment", "JOBS", "4097", {}},
        {"test-debian", "RELEASE", "trixie' in trixie) " + touch + ";; esac; case 'x", {}},
        {"test-debian", "RELEASE", "sid", {}},
        {"experiment", "SEEDS", "0 01", {}},  // its runs' files would be named seed01, never found as seed 1
        {"experiment-extension", "EXTENSION_LENGTHS", "32 064", {}},  // pi-064 would stand beside pi-64
        // Folders whose files would mix with the sources, or land at the root (compile_flags.txt is
        // written while make reads the Makefile, even under -n). Through make help, which checks every
        // variable given as well: were the check gone, nothing would be built or run there.
        {"help", "BUILD", "/", {}},
        {"help", "BUILD", ".", {}},
        {"help", "BUILD", "..", {}},
        {"help", "BUILD", source_dir, {}},
        {"help", "RESULTS", "/", {}},
        {"help", "RESULTS", ".", {}},
        {"help", "RESULTS", source_dir + "/..", {}},
    };
    for (const Case& c : cases) {
        INFO("make " << c.goal << " " << c.variable << "='" << c.value << "'");
        std::vector<std::string> args = {c.goal, c.variable + "=" + c.value};
        if (c.variable != "RESULTS") args.push_back("RESULTS=" + results);
        const Outcome o = make_in_source(folder, concat(args, c.others));
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.out.empty());
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "*** " + c.variable + " m"));  // "must be" or "may not hold"
        CHECK_FALSE(fs::exists(canary));
        CHECK_FALSE(fs::exists(results));
        CHECK_FALSE(fs::exists(source_dir + "/compile_flags.txt"));
        fs::remove(canary);
    }
    // A name the Makefile does not take, given on the command line: a typo (SEDS for SEEDS, which
    // would run the default seeds without a word), or a name it uses inside, whose value a recipe's
    // shell would read unchecked.
    for (const auto& [goal, assignment] : std::vector<std::pair<std::string, std::string>>{
             {"experiment", "EXPERIMENT_SCHEMES=rope;" + touch + ";"},
             {"experiment", "SEDS=0 1"},
             {"exercise", "CHECKED_BUILD=" + folder.file("x") + ";" + touch},
             {"help", "CXXFLAGS=-O0"}}) {
        const Outcome o = make_in_source(folder, {goal, assignment, "RESULTS=" + results});
        const std::string name = assignment.substr(0, assignment.find('='));
        INFO("make " << goal << " '" << assignment << "'\nstdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.out.empty());
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "*** " + name + " is not a variable this Makefile takes (a typo?); the variables it takes: "));
        CHECK_FALSE(fs::exists(canary));
        CHECK_FALSE(fs::exists(results));
    }
    // A link to the checkout, or to a folder holding it, is the checkout: RESULTS or BUILD through it
    // would write the experiment's files among the sources (the check compared paths unresolved).
    fs::create_directory_symlink(source_dir, folder.file("to_source"));
    fs::create_directory_symlink(source_dir + "/..", folder.file("to_parent"));
    for (const std::string variable : {"RESULTS", "BUILD"})
        for (const std::string& link : {folder.file("to_source"), folder.file("to_parent"), folder.file("to_source") + "/.."}) {
            const Outcome o = make_in_source(folder, {"experiment-collect", variable + "=" + link});
            INFO("make experiment-collect " << variable << "=" << link << "\nstdout: " << o.out << "\nstderr: " << o.err);
            CHECK(o.status == 2);
            CHECK(o.err_lines() == 1);
            CHECK(holds(o.err, "*** " + variable + " must be one folder path"));
        }
    CHECK_FALSE(fs::exists(source_dir + "/runs"));
    CHECK_FALSE(fs::exists(source_dir + "/table.txt"));
    // A file where the folder belongs: one line naming the variable (it was mkdir's message and make's).
    write_bytes(folder.file("a_file"), "mine\n");
    for (const std::string variable : {"RESULTS", "BUILD"}) {
        const Outcome o = make_in_source(folder, {"experiment", variable + "=" + folder.file("a_file")});
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "*** " + variable + " must be one folder path"));
        CHECK(holds(o.err, "nor a file, got '" + folder.file("a_file") + "'"));
        CHECK(read_bytes(folder.file("a_file")) == "mine\n");
    }
    // make clean removes build/, every build under it; a BUILD elsewhere is the user's folder, left to them.
    const std::string elsewhere = folder.file("my_build");
    const Outcome clean = make_in_source(folder, {"-n", "clean", "BUILD=" + elsewhere});  // -n: build/ stays, whatever happens
    INFO("stdout: " << clean.out << "\nstderr: " << clean.err);
    CHECK(clean.status == 2);
    CHECK(clean.out.empty());
    CHECK(clean.err_lines() == 1);
    CHECK(holds(clean.err, "*** make clean removes build/ (every build under it), and BUILD=" + elsewhere + " is outside it"));
    CHECK_FALSE(fs::exists(elsewhere));
}

TEST_CASE("make experiment: RUN_FLAGS no run can start with stop make in one line before any result is removed", "[cli]") {
    Folder folder("make_run_flags");
    const std::string results = folder.file("results");
    const std::string flags = "--steps 3 --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2";
    // What make asks first: train_position --check-flags runs nothing and writes nothing.
    const Outcome checked = run(folder, "train_position", concat({"lag", "rope", "0", "--check-flags", "--save", "w.safetensors"},
                                                                 words(flags)));
    CHECK(checked.status == 0);
    CHECK(checked.out.empty());
    CHECK(checked.err.empty());
    CHECK_FALSE(fs::exists(folder.path / "w.safetensors"));
    check_one_line_refusal(run(folder, "train_position", {"lag", "rope", "0", "--check-flags", "--steps=5"}), 2, "train_position",
                           "unknown flag '--steps=5'");
    const Outcome first = make_in_source(folder, {"experiment", "RESULTS=" + results, "SEEDS=0", "RUN_FLAGS=" + flags}, "first");
    INFO(first.out << first.err);
    REQUIRE(first.status == 0);
    const auto before = files_under(results);
    REQUIRE(before.count("runs/lag_none_seed0.txt") == 1);
    REQUIRE(before.count("table.txt") == 1);
    // A result is readable as any new file is (its weights beside it), not private as mktemp makes it:
    // other users of a shared results folder read it.
    CHECK(fs::status(results + "/runs/lag_none_seed0.txt").permissions() ==
          fs::status(results + "/runs/lag_none_seed0.safetensors").permissions());
    const std::pair<std::string, std::string> cases[] = {
        {flags + " --steps=5", "unknown flag '--steps=5'"},
        {flags + " --stesp 5", "unknown flag '--stesp'"},
        {flags + " --lr x", "--lr needs a number, got 'x'"},
        {flags + " --lr", "--lr needs a value"},
        {flags + " --heads 3", "--heads 3 does not divide --dim 8"},
        {flags + " --kernels fused", "unknown kernels 'fused'"},
        {flags + " --steps 4", "--steps is given twice"},
        {flags + " --threads 0", "--threads"},
        {"--steps 3 --dim 0", "--dim must be from 1 to 4096, got 0"},
        {flags + " extra", "expected TASK SCHEME SEED, got 4 positional arguments"},
        {flags + " -h", "-h stands alone (train_position --help)"},  // a help text would pass for a check
        {flags + " --help", "--help stands alone (train_position --help)"},
        {flags + " --lr 1e-50", "--lr 1e-50 is below the smallest normal float32"},
    };
    for (const std::string goal : {"experiment", "experiment-jobs", "experiment-extension"})
        for (const auto& [run_flags, message] : cases) {
            INFO("make " << goal << " RUN_FLAGS='" << run_flags << "'");
            const Outcome o = make_in_source(folder, {goal, "RESULTS=" + results, "SEEDS=0", "RUN_FLAGS=" + run_flags});
            INFO("stdout: " << o.out << "\nstderr: " << o.err);
            CHECK(o.status == 2);
            CHECK(o.out.empty());
            CHECK(o.err_lines() == 1);
            CHECK(holds(o.err, "*** train_position: " + message));
            CHECK(holds(o.err, "so no result file was removed"));
            CHECK(files_under(results) == before);
        }
    // An environment no run can start in is said as such, not blamed on RUN_FLAGS.
    {
        const Outcome o = script(folder, "OMP_NUM_THREADS=abc env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C " +
                                             quoted(source_dir) + " SANITIZE=" + quoted(this_sanitize()) + " experiment RESULTS=" +
                                             quoted(results) + " SEEDS=0 " + quoted("RUN_FLAGS=" + flags), "environment");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "*** train_position: OMP_NUM_THREADS is 'abc': "));
        CHECK(holds(o.err, "; no run can start in this environment, whatever RUN_FLAGS hold, so no result file was removed"));
        CHECK_FALSE(holds(o.err, "RUN_FLAGS='"));
        CHECK(files_under(results) == before);
    }
    // Settings make itself refuses, and lengths the extension's collector refuses before its prune.
    struct Refused {
        std::string goal;
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Refused> refused = {
        {"experiment", {"SEEDS=0", "RUN_FLAGS=" + flags + " --train-len 64"}, "RUN_FLAGS may not hold --train-len"},
        {"experiment", {"SEEDS=0", "RUN_FLAGS=" + flags + " --check-flags"}, "RUN_FLAGS may not hold --check-flags"},  // not "given twice"
        {"experiment", {"SEEDS=00", "RUN_FLAGS=" + flags}, "SEEDS must be"},
        {"experiment-extension", {"SEEDS=0", "RUN_FLAGS=" + flags, "EXTENSION_LENGTHS=32 6400"}, "LENGTHS must be at most 4096"},
        {"experiment-extension", {"SEEDS=0", "RUN_FLAGS=" + flags, "EXTENSION_LENGTHS=32 64 48"}, "LENGTHS must increase"},
    };
    for (const Refused& r : refused) {
        INFO("make " << r.goal << " " << r.args.back());
        const Outcome o = make_in_source(folder, concat({r.goal, "RESULTS=" + results}, r.args));
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(holds(o.err, r.message));
        CHECK(files_under(results) == before);
    }
    // The inner steps, typed by hand, would skip both the checks above and the lock: refused in one
    // line naming the goal to run, even with a RUN_FLAGS typo that their prune would have taken for
    // results made with other flags.
    const std::pair<std::string, std::string> inner[] = {
        {"experiment-locked", "make experiment"}, {"experiment-runs", "make experiment"},
        {"experiment-slurm", "make experiment"}, {"extension-locked", "make experiment-extension"},
        {"extension-runs", "make experiment-extension"},
    };
    for (const auto& [goal, outer] : inner) {
        INFO("make " << goal);
        const Outcome o = make_in_source(folder, {goal, "RESULTS=" + results, "SEEDS=0", "RUN_FLAGS=" + flags + " --stesp 5"});
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.out.empty());
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "*** make " + goal + " is a step of " + outer + ", which runs it under " + results + "/.lock"));
        CHECK(files_under(results) == before);
    }
}
