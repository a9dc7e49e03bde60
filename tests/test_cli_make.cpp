// make's own variables through the real Makefile (make -C the source tree, as a user types it): a
// value with shell or make characters (';', a backtick, "$(...)", '#', ':', '%', a blank, a newline,
// a leading '-') in any variable a user gives (RESULTS, SEEDS, JOBS, RUN_FLAGS, SLURM_FLAGS,
// SCHEDULER, KERNELS, EXERCISE, TASK, SEED, STEPS, the time limits, EXTENSION_LENGTHS, BUILD,
// BENCH_SIZES, BENCH_THREADS, WEB_PORT, RELEASE; SEEDS with a leading zero, a number beyond what its program reads too), for
// the goals that use it and for a goal that does not, stops make with one line naming the variable,
// runs nothing of its own and makes no folder (experiment/make_variables.mk). RUN_FLAGS no run could start
// with stop make experiment before its prune; a picture that cannot be written whole (a file-size
// limit, a full tmpfs) is not drawn (tests/test_cli_exercises.cpp has the exercises' make goals); make
// lessons-run leaves lesson 06 for after its exercise, saying how to run it; make experiment
// MY_SCHEMES runs a learner's own scheme under its own name; make experiment's and experiment-extension's
// inner steps (experiment-locked, extension-runs, ...) typed by hand are refused before they prune.
// Leaves out the experiment's runs themselves (tests/experiment_resume.sh, make test-experiment) and
// the exercise checkers' verdicts (lessons/exercises/selftest.sh, on tests/exercises/).
#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/programs.hpp"  // and the test framework

using namespace wai::testing;
namespace fs = std::filesystem;


TEST_CASE("make finds nothing to rebuild once make test has built it: a make a test starts rebuilds no program another runs", "[cli]") {
    // make test builds every program first; the make tests then run make beside the other part of the
    // run (tests/run_parts.sh), which is running those programs. An object make deleted as an
    // intermediate file at the first build was named by its .d file at the second, which compiled and
    // linked the program again while it ran ("Permission denied" from the half-written file).
    Folder folder("make_up_to_date");
    const Outcome o = make_in_source(folder, {"-q", "test-programs"});
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 0);
    for (const char* program : {"train_position", "collect_results", "collect_extension"})
        CHECK(fs::exists(build_dir + "/programs/" + program + ".o"));
}

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
    for (const std::string& variable : {"RESULTS", "BUILD"})
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
    for (const std::string& variable : {"RESULTS", "BUILD"}) {
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

namespace {

// Every file under `root`, path and bytes, in order: what "every result file as it was" compares.
std::map<std::string, std::string> files_under(const fs::path& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root))
        if (entry.is_regular_file()) files[fs::relative(entry.path(), root).string()] = read_bytes(entry.path().string());
    return files;
}

}  // namespace

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
        {"--steps 3 --dim 0", "--dim must be positive, got 0"},
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

namespace {

// The files under `root` whose names hold `part` (".draw." or ".tmp."): what a failed write must not leave.
int leftovers_under(const fs::path& root, const std::string& part) {
    int n = 0;
    for (const auto& entry : fs::recursive_directory_iterator(root))
        n += entry.path().filename().string().find(part) != std::string::npos;
    return n;
}

}  // namespace

TEST_CASE("make experiment again: a run whose weights are garbage is redone, and the outputs of the first are replaced", "[cli]") {
    // echo garbage > RESULTS/runs/lag_rope_seed0.safetensors, then make experiment: the run was kept as
    // finished, its garbage weights with it (make plots would fail on them later).
    Folder folder("make_garbage_weights");
    const std::string results = folder.file("results");
    const std::vector<std::string> settings = {"RESULTS=" + results, "SEEDS=0",
                                               "RUN_FLAGS=--steps 3 --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2"};
    const Outcome first = make_in_source(folder, concat({"experiment"}, settings), "first");
    INFO(first.out << first.err);
    REQUIRE(first.status == 0);
    const std::string table = read_bytes(results + "/table.txt"), summary = read_bytes(results + "/summary.md");
    const std::string weights = results + "/runs/lag_rope_seed0.safetensors", good_weights = read_bytes(weights);
    write_bytes(weights, "garbage\n");
    const Outcome again = make_in_source(folder, concat({"experiment"}, settings), "again");
    INFO(again.out << again.err);
    CHECK(again.status == 0);
    CHECK(holds(again.out, "experiment: " + results + "/runs/lag_rope_seed0.txt has weights beside it that are not a readable "
                           "safetensors file (weights file '" + weights + "': "));
    CHECK(holds(again.out, "; it will be run again (its weights, lag_rope_seed0.safetensors, removed with it)"));
    CHECK(holds(again.out, "[14/14] lag rope seed 0: "));  // that run alone, the 13 others kept
    CHECK(again.out.find("/14] ") == again.out.rfind("/14] "));
    // The same run again: the same weights and the same table, written over the first make's own outputs.
    CHECK(read_bytes(weights) == good_weights);
    CHECK(read_bytes(results + "/table.txt") == table);
    CHECK(read_bytes(results + "/summary.md") == summary);
    CHECK(holds(again.out, "experiment: wrote " + results + "/table.txt"));
}

TEST_CASE("make experiment-collect and make plots: a picture that cannot be written whole, or from data with no valid points, is not drawn, and make fails", "[cli]") {
    Folder folder("make_full_disk");
    const std::string results = folder.file("results");
    const std::vector<std::string> settings = {"RESULTS=" + results, "SEEDS=0",
                                               "RUN_FLAGS=--steps 3 --dim 8 --mlp 8 --layers 2 --batch 2 --eval-seqs 2"};  // two layers, as the chapter's model
    const Outcome first = make_in_source(folder, concat({"experiment"}, settings), "first");
    INFO(first.out << first.err);
    REQUIRE(first.status == 0);
    const Outcome drawn = make_in_source(folder, concat({"plots"}, settings), "drawn");
    INFO(drawn.out << drawn.err);
    REQUIRE(drawn.status == 0);
    const auto pictures = files_under(results + "/plots");
    const std::string svg = read_bytes(results + "/plots/experiment.svg"), png = read_bytes(results + "/plots/experiment.png");
    REQUIRE(svg.size() > 20000);  // the file-size limit below is under each picture's size, above the table's
    REQUIRE(png.size() > 20000);

    // A file-size limit of 16 KiB (gnuplot is stopped by SIGXFSZ, or a write fails): the old pictures stay.
    for (const std::string goal : {"experiment-collect", "plots"}) {
        INFO("ulimit -f 16; make " << goal);
        std::string line = "ulimit -f 16; env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C " + quoted(source_dir) +
                           " SANITIZE=" + quoted(this_sanitize()) + " " + goal;
        for (const std::string& s : settings) line += " " + quoted(s);
        const Outcome o = script(folder, line, "limited");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status != 0);
        CHECK_FALSE(holds(o.out, "drew"));
        CHECK_FALSE(holds(o.out, "svg and .png"));
        CHECK((holds(o.err, "nothing drawn") || holds(o.err, "cannot write")));
        CHECK(files_under(results + "/plots") == pictures);
        CHECK(leftovers_under(results, ".draw.") == 0);
        CHECK(leftovers_under(results, ".tmp.") == 0);
    }

    // A data file with no valid points (overwritten, emptied) is a warning to gnuplot, which then draws
    // an empty panel: make plots draws nothing and fails, the old pictures stay.
    const std::string lag_data = read_bytes(results + "/data/lag.dat");
    for (const std::string bad : {"garbage here\n", ""}) {
        INFO("data/lag.dat: '" << bad << "'");
        write_bytes(results + "/data/lag.dat", bad);
        const Outcome o = make_in_source(folder, concat({"plots"}, settings), "corrupt");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status != 0);
        CHECK(holds(o.err, "plots: gnuplot warned while drawing " + results + "/plots/experiment.svg"));
        CHECK_FALSE(holds(o.out, "experiment.svg and .png"));
        CHECK(files_under(results + "/plots") == pictures);
        CHECK(leftovers_under(results, ".draw.") == 0);
    }
    write_bytes(results + "/data/lag.dat", lag_data);

    // A full disk: the results on a small tmpfs with room for the table, the summary and the data but
    // not the pictures. gnuplot exits 0 with a cut SVG or an empty PNG there; neither is drawn.
    const std::string disk = folder.file("disk");
    fs::create_directories(disk);
    fs::remove_all(results + "/plots");
    const Outcome mounted = script(folder, "size=$(( $(du -sk " + quoted(results) + " | cut -f1) + 48 )); mount -t tmpfs -o size=${size}k tmpfs " +
                                               quoted(disk) + " && cp -r " + quoted(results) + " " + quoted(disk + "/results"),
                                   "mount");
    if (mounted.status != 0) {
        WARN("the full-disk case is left out: no tmpfs could be mounted here (" << mounted.err << ")");
        return;
    }
    struct Unmount {
        std::string path;
        ~Unmount() { std::system(("umount " + wai::testing::quoted(path)).c_str()); }
    } unmount{disk};
    const Outcome o = make_in_source(folder, {"experiment-collect", "RESULTS=" + disk + "/results", settings[1], settings[2]}, "full");
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status != 0);
    CHECK_FALSE(holds(o.out, "drew"));
    CHECK(holds(o.err, "came out cut short or empty (a full disk or a file-size limit?); nothing drawn over it"));
    CHECK_FALSE(fs::exists(disk + "/results/plots/experiment.svg"));
    CHECK_FALSE(fs::exists(disk + "/results/plots/experiment.png"));
    CHECK(leftovers_under(disk, ".draw.") == 0);
    CHECK(leftovers_under(disk, ".tmp.") == 0);
}

TEST_CASE("make plots draws the attention maps of as many layers as the models have, and no earlier run's", "[cli]") {
    Folder folder("make_plots_layers");
    const std::string results = folder.file("results");
    for (const char* layers : {"3", "1"}) {
        INFO("--layers " << layers);
        const std::vector<std::string> settings = {
            "RESULTS=" + results, "SEEDS=0", std::string("RUN_FLAGS=--steps 3 --dim 8 --mlp 8 --batch 2 --eval-seqs 2 --layers ") + layers};
        const Outcome trained = make_in_source(folder, concat({"experiment"}, settings), "trained");
        INFO(trained.out << trained.err);
        REQUIRE(trained.status == 0);
        const Outcome drawn = make_in_source(folder, concat({"plots"}, settings), "drawn");
        INFO(drawn.out << drawn.err);
        CHECK(drawn.status == 0);
        CHECK(holds(drawn.out, "attention.svg and .png"));
        int maps = 0;
        for (const auto& entry : fs::directory_iterator(results + "/plots/data"))
            maps += entry.path().filename().string().rfind("attention_lag_", 0) == 0;
        CHECK(maps == 2 * std::stoi(layers));  // learned and rope, each layer once
    }
}

TEST_CASE("make experiment MY_SCHEMES=mine: your scheme runs under its own name and is reported after the chapter's table", "[cli]") {
    Folder folder("make_my_schemes");
    const std::string results = folder.file("results");
    const std::vector<std::string> settings = {"RESULTS=" + results, "SEEDS=0", "MY_SCHEMES=mine",
                                               "RUN_FLAGS=--steps 3 --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2"};
    const Outcome o = make_in_source(folder, concat({"experiment"}, settings));
    INFO(o.out << o.err);
    REQUIRE(o.status == 0);
    CHECK(holds(o.out, "[16/16]"));  // the chapter's 14 runs of seed 0, and mine on each task
    const std::string table = read_bytes(results + "/table.txt"), summary = read_bytes(results + "/summary.md");
    CHECK(holds(table, "lag  mine         seed 0: length 32 / 64 / 128: "));
    CHECK(holds(table, "seen mine         seed 0: length 32 / 64 / 128: "));
    CHECK(holds(summary, "## Your schemes (MY_SCHEMES)"));
    CHECK(holds(summary, "| mine | "));
    // A name that is not a scheme is refused before any run, with the program's own line.
    const Outcome bad = make_in_source(folder, concat({"experiment"}, {"RESULTS=" + results, "SEEDS=0", "MY_SCHEMES=mien"}), "bad");
    CHECK(bad.status != 0);
    CHECK(holds(bad.err, "unknown scheme 'mien'"));
    CHECK(read_bytes(results + "/table.txt") == table);
    // A chapter's scheme is run anyway: naming it again is refused by the collector.
    const Outcome twice = make_in_source(folder, concat({"experiment"}, {"RESULTS=" + results, "SEEDS=0", "MY_SCHEMES=rope"}), "twice");
    CHECK(twice.status != 0);
    CHECK(holds(twice.err, "'rope' is one of the chapter's schemes"));
}

TEST_CASE("make lessons-run runs the lessons in order but 06, which waits for its exercise and says how to run it", "[cli]") {
    // Three stand-in lessons that only say they ran, in place of build/lessons/ (the real ones train for
    // minutes): make lessons-run walks LESSON_PROGRAMS as it walks the real ones.
    Folder folder("lessons_run");
    std::string programs;
    for (const char* lesson : {"05_rope", "06_rope_exercise", "07_pairing_trap"}) {
        const std::string path = folder.file(lesson);
        write_bytes(path, std::string("#!/bin/sh\necho \"ran ") + lesson + "\"\n");
        fs::permissions(path, fs::perms::owner_all);
        programs += (programs.empty() ? "" : " ") + path;
    }
    const Outcome o = make_in_source(folder, {"lessons-run", "LESSON_PROGRAMS=" + programs});
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 0);
    CHECK(holds(o.out, "ran 05_rope"));
    CHECK(holds(o.out, "ran 07_pairing_trap"));
    CHECK_FALSE(holds(o.out, "ran 06_rope_exercise"));
    const size_t waits = o.out.find("==== 06_rope_exercise: not run here: it is the worked solution of the exercise "
                                    "lessons/exercises/rope_rotation.cpp.");
    REQUIRE(waits != std::string::npos);
    CHECK(o.out.find("ran 05_rope") < waits);
    CHECK(waits < o.out.find("ran 07_pairing_trap"));
    CHECK(holds(o.out, "Solve that first (make exercise EXERCISE=rope_rotation says \"solved\"), then run: " +
                           folder.file("06_rope_exercise")));
}

TEST_CASE("make -j web: every WebAssembly object waits for Emscripten's set-up (check-web-deps), which installs it first", "[cli]") {
    // With make -j2 web on a machine without Emscripten, objects were compiled beside check-web-deps,
    // before it had installed em++ ("em++: not found"). Each object now waits, order-only, for
    // include/.linked, which waits for check-web-deps: read from make's own database (-p), without
    // running anything (-n), for every object rule of the web build.
    Folder folder("web_order");
    const std::string web = (folder.path / "web").string();
    const Outcome o = make_in_source(folder, {"-pn", "web", "WEB_BUILD=" + web});
    INFO("stderr: " << o.err);
    REQUIRE(o.status == 0);
    int objects = 0;
    bool linked_waits = false;
    std::istringstream database(o.out);
    for (std::string line; std::getline(database, line);) {
        if (line.rfind(web + "/include/.linked:", 0) == 0) linked_waits = line.find("| check-web-deps") != std::string::npos;
        // An object's rule: "WEB/tensor/tensor.o: tensor/tensor.cpp WEB/compile_flags.txt | WEB/include/.linked"
        if (line.rfind(web + "/", 0) == 0 && line.find(".o: ") != std::string::npos && line.find(".cpp") != std::string::npos) {
            ++objects;
            INFO("the rule: " << line);
            CHECK(line.find("| " + web + "/include/.linked") != std::string::npos);
        }
    }
    CHECK(linked_waits);
    CHECK(objects > 50);  // the library twice (plain and checked), the lessons twice, the programs, the page
}

TEST_CASE("make -f the Makefile from another folder says to run it in the checkout (make -C), and makes nothing", "[cli]") {
    // Every path in the Makefile is the checkout's: from elsewhere it stopped on "platform/plain_build.mk:
    // No such file or directory", which did not say what to do.
    Folder folder("make_elsewhere");
    const std::string makefile = fs::absolute(source_dir + "/Makefile").string();
    const Outcome o = script(folder, "make -f " + quoted(makefile) + " build/train_position");
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 2);
    CHECK(holds(o.err, "make runs in the checkout's folder, where this Makefile is: make -C " +
                           fs::absolute(source_dir).lexically_normal().string()));
    CHECK(holds(o.err, "build/train_position"));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(!fs::exists(folder.path / "build"));
}
