// The exercises' programs through make and their containment (lessons/exercises/): make exercise-train
// on an exercise not written yet says so once, before the library's run; the board (board.sh) names a verdict without its line,
// a child left running, a printed verdict line and a crash by what the program printed; build/contain
// (programs/contain.cpp) stops what a learner's code left running with /proc alone (no procps), even
// a process that left the session, and stops at the limit a program that ignores SIGTERM; learner
// code cannot change the build a later make exercise trusts, nor write a file past the size limit, and
// make exercise-train ends a step that never returns near each run's limit.
// Leaves out the checkers' verdicts on their fixtures (lessons/exercises/selftest.sh, make test runs it).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/programs.hpp"  // and the test framework

using namespace wai::testing;
namespace fs = std::filesystem;

TEST_CASE("make exercise-train on an exercise not written yet says so once, and make exits 0", "[cli][exercises]") {
    // The learner's code runs under a 4 GiB address-space limit, where a sanitizer build cannot map its
    // terabytes of shadow memory: the plain build's run holds this.
    if (!this_sanitize().empty()) return;
    Folder folder("make_exercise_train");
    // lessons/exercises/alibi_bias.cpp is the untouched scaffold in the source tree (the self-test
    // holds every scaffold to "not solved yet" too).
    const Outcome o = make_in_source(folder, {"exercise-train", "EXERCISE=alibi_bias", "STEPS=5"});
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 0);
    const std::string said = o.out + o.err;
    const std::string line = "exercise-train alibi_bias: your code is not written yet";
    CHECK(said.find(line) != std::string::npos);
    CHECK(said.find(line) == said.rfind(line));
    CHECK_FALSE(holds(said, "which is not a verdict"));
    CHECK_FALSE(holds(said, "***"));
    // Said before the library's run, not after it (at the chapter's 2000 steps, minutes).
    CHECK_FALSE(holds(said, "library:"));
}

TEST_CASE("make exercises' board: a verdict without its line is no verdict, a child left running is said, a crash is named by what it printed", "[cli][exercises]") {
    // The fixtures are built by the exercises' self-test, which a sanitizer build leaves out (as make test
    // does): the plain build's run holds this.
    if (!this_sanitize().empty()) return;
    Folder folder("exercise_board");
    // The board (lessons/exercises/board.sh, make exercises' own) on a checker built with a fixture in
    // place of the learner's file; `true` stands in for the make that would build it.
    const std::pair<std::string, std::string> cases[] = {
        {"right_leaves_a_child", "  [solved]  topological_order (your code left 1 process(es) running, stopped when it ended)\n"},
        {"wrong_underscore_exit", "  [WRONG]   topological_order: your code ended the program before the checker could judge it"},
        {"wrong_exit_early", "  [WRONG]   topological_order: wrong answer: your code ended the program before the checker could judge it"},
        // A printed "topological_order: solved" is output, not the checker's verdict.
        {"wrong_forges_verdict", "  [WRONG]   topological_order: your code ended the program before the checker could judge it"},
        {"right_leaves_a_session", "  [solved]  topological_order (your code left 1 process(es) running, stopped when it ended)\n"},
        {"wrong_throws_int", "  [WRONG]   topological_order: wrong answer: your code stopped with an error: an exception that is not a "
                             "std::exception: 42\n"},
        // A crash's line names a cause only when the program's output shows one.
        {"crash_past_the_end", "  [WRONG]   topological_order: your code stopped the program with a failed assertion (SIGABRT): a "
                               "std::vector was indexed past its end ("},
        {"crash_abort_no_reason", "  [WRONG]   topological_order: your code stopped the program with SIGABRT (abort) and printed no "
                                  "reason for it; the signal does not say which line of your code did it, nor why"},
    };
    for (const auto& [fixture, line] : cases) {
        INFO(fixture);
        const fs::path checker = folder.path / fixture / "topological_order";
        fs::create_directories(checker.parent_path());
        fs::create_symlink(build_dir + "/exercises/fixtures/topological_order/" + fixture, checker);
        const Outcome o = script(folder, "cd " + quoted(source_dir) + " && sh lessons/exercises/board.sh true " +
                                             quoted(build_dir + "/contain") + " " + quoted(checker.parent_path().string()) +
                                             " topological_order");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == (fixture.rfind("right_", 0) == 0 ? 0 : 1));
        CHECK(holds(o.out, line));
    }
}

namespace {

// How many processes hold `file` open (by /proc/PID/fd): a process a run left behind holds its output.
int holding(const fs::path& file) {
    int n = 0;
    for (const auto& process : fs::directory_iterator("/proc")) {
        std::error_code error;
        for (const auto& fd : fs::directory_iterator(process.path() / "fd", error)) {
            std::error_code unreadable;
            if (fs::read_symlink(fd.path(), unreadable) == file) {
                ++n;
                break;
            }
        }
    }
    return n;
}

}  // namespace

// The processes running `program` (by /proc/PID/exe): none may outlive a contained run.
int running(const fs::path& program) {
    int n = 0;
    for (const auto& process : fs::directory_iterator("/proc")) {
        std::error_code error;
        if (fs::read_symlink(process.path() / "exe", error) == program) ++n;
    }
    return n;
}

TEST_CASE("make exercise's containment: nothing the learner's code starts outlives the run, in either of contain's modes", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the fixtures come from the plain build, as above
    Folder folder("contain_modes");
    const std::string contain = build_dir + "/contain";
    // The PID namespace where the kernel allows it, and the subreaper mode always (a chroot's, a container's).
    const std::string here = script(folder, quoted(contain) + " --mode").out;
    std::vector<std::string> modes = {"--subreaper"};
    if (here == "pid namespace\n") modes.push_back("");
    else WARN("contain's PID namespace is not allowed here (" << here << "): its subreaper mode alone is tested");
    const struct {
        std::string fixture, seconds;
        int status;
        bool left;
    } cases[] = {{"right_leaves_a_child", "60", 0, true},
                 {"right_leaves_a_session", "60", 0, true},
                 {"right_leaves_a_hopper", "60", 0, true},
                 {"endless_with_a_child", "2", 124, true},
                 {"endless_ignores_sigterm", "2", 124, false}};
    for (const std::string& mode : modes)
        for (const auto& c : cases) {
            INFO(c.fixture << " " << (mode.empty() ? "in a PID namespace" : mode));
            const fs::path program = fs::canonical(build_dir + "/exercises/fixtures/topological_order/" + c.fixture);
            // An empty PATH: no pgrep, as on debootstrap's minbase or a container's image. Under coreutils'
            // timeout with SIGKILL (status 137), so that a containment that fails to stop the program fails
            // this case instead of leaving make test waiting.
            const Outcome o = script(folder, "cd " + quoted(source_dir) + " && PATH= /usr/bin/timeout -s KILL 300 " +
                                                 quoted(contain) + " " + mode + " " + c.seconds + " " + quoted(program.string()),
                                     c.fixture);
            INFO("stdout: " << o.out << "\nstderr: " << o.err);
            CHECK(o.status == c.status);
            CHECK(holds(o.err, ": your code left ") == c.left);
            // Nothing it started outlives it: no process runs the program, none holds its output.
            CHECK(running(program) == 0);
            CHECK(holding(folder.file(c.fixture + ".out")) == 0);
            CHECK(holding(folder.file(c.fixture + ".err")) == 0);
        }
    // Code that sends SIGSTOP and SIGKILL to its parent: in the namespace that is the namespace's init,
    // which ignores both, and the run ends at the limit; in the subreaper mode it is contain, killed, and
    // the program dies with it (its parent-death signal) instead of running on under init.
    const fs::path stopper = fs::canonical(build_dir + "/exercises/fixtures/topological_order/endless_stops_its_parent");
    for (const std::string& mode : modes) {
        INFO("endless_stops_its_parent " << (mode.empty() ? "in a PID namespace" : mode));
        const Outcome o = script(folder, "/usr/bin/timeout -s KILL 60 " + quoted(contain) + " " + mode + " 2 " + quoted(stopper.string()));
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == (mode.empty() ? 124 : 137));
        for (int tries = 0; tries < 50 && running(stopper) > 0; ++tries) usleep(100000);  // the parent-death signal's delivery
        CHECK(running(stopper) == 0);
    }
}

TEST_CASE("make exercise that cannot write its report says so in one line, and shows no earlier report", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the learner's build is the plain one, as above
    Folder folder("exercise_report_unwritable");
    // A read-only build folder; here, as root may write anywhere, a folder standing at the report's path
    // (causal_mask: no other test runs make exercise on it).
    const fs::path report = fs::path(build_dir) / "exercises" / "causal_mask.report";
    fs::create_directories(report.parent_path());
    fs::remove_all(report);
    fs::create_directories(report / "earlier");
    const Outcome o = make_in_source(folder, {"exercise", "EXERCISE=causal_mask"});
    fs::remove_all(report);
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 2);
    CHECK(holds(o.err, "causal_mask: cannot write its report "));
    CHECK(holds(o.err, "exercises/causal_mask.report (a read-only build folder?); give a writable one with BUILD="));
    CHECK_FALSE(holds(o.err, "not a verdict"));
    CHECK_FALSE(holds(o.out + o.err, "exercise causal_mask:"));  // no report, earlier or new
}

TEST_CASE("two make exercise at once, each rebuilding the learner's program, both give the verdict", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the learner's build is the plain one, as above
    Folder folder("exercise_twice_at_once");
    // A learner who saved the file and pressed the key in two terminals: both makes compile and link the
    // same program, and one ran it while the other wrote it ("Text file busy"). log_length_scale: no other
    // test runs make exercise on it.
    const fs::path learner = fs::path(source_dir) / "lessons/exercises/log_length_scale.cpp";
    for (int round = 0; round < 3; ++round) {
        INFO("round " << round);
        fs::last_write_time(learner, fs::file_time_type::clock::now());
        const std::string make = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make --no-print-directory -C " +
                                 quoted(source_dir) + " exercise EXERCISE=log_length_scale";
        const Outcome o = script(folder, "(" + make + " > a.out 2>&1; echo $? > a.status) & (" + make +
                                             " > b.out 2>&1; echo $? > b.status) & wait; cat a.status b.status a.out b.out");
        INFO("output: " << o.out << o.err);
        CHECK(o.out.rfind("0\n0\n", 0) == 0);
        const std::string verdict = "log_length_scale: not solved yet: ";
        CHECK(o.out.find(verdict) != std::string::npos);
        CHECK(o.out.find(verdict) != o.out.rfind(verdict));
        CHECK_FALSE(holds(o.out, "busy"));
        CHECK_FALSE(holds(o.out, "Error"));
    }
}

namespace {

// A folder (`place` in `folder`) standing for make's EXERCISE_BUILD (exercises.mk) in which the
// learner's object is a fixture's (tests/exercises/NAME/FIXTURE.cpp, built by make test) and the
// checker's and the training program's objects are the build's: make exercise and make exercise-train,
// given it, link and run the fixture as they would the learner's own code. The copies are newer than
// the sources, so make compiles nothing.
std::string exercise_build_with(const Folder& folder, const std::string& place, const std::string& name, const std::string& fixture) {
    const fs::path from = fs::path(build_dir) / "exercises", to = folder.path / place;
    fs::create_directories(to / "check");
    fs::create_directories(to / "train");
    fs::copy_file(from / "fixtures" / name / (fixture + ".o"), to / (name + ".o"));
    fs::copy_file(from / "check" / (name + ".o"), to / "check" / (name + ".o"));
    if (fs::exists(from / "train" / (name + ".o"))) fs::copy_file(from / "train" / (name + ".o"), to / "train" / (name + ".o"));
    return to.string();
}

// contain's modes here, as make's EXERCISE_CONTAIN gives them: its namespaces where the kernel allows
// them (""), and its subreaper mode always.
std::vector<std::string> contain_modes(const Folder& folder) {
    std::vector<std::string> modes = {"subreaper"};
    const std::string here = script(folder, quoted(build_dir + "/contain") + " --mode").out;
    if (here == "pid namespace\n")
        modes.insert(modes.begin(), "");
    else
        WARN("contain's namespaces are not allowed here (" << here << "): its subreaper mode alone is tested");
    return modes;
}

}  // namespace

TEST_CASE("make exercise: learner code that renames a script over the checker program does not make the next run say solved", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the learner's build is the plain one, as above
    // A tester's attack: the learner's code wrote a script that gives "solved" on the verdict's
    // descriptor and renamed it over build/exercises/rope_rotation; the first make exercise said wrong
    // answer, and the next (the learner's file unchanged, so nothing linked) ran the script: "solved".
    Folder folder("exercise_forged_checker");
    for (const std::string& mode : contain_modes(folder)) {
        INFO((mode.empty() ? "in contain's namespaces" : "in contain's subreaper mode"));
        const std::string build = exercise_build_with(folder, "build_" + (mode.empty() ? "namespaces" : mode), "rope_rotation", "forges_the_checker");
        const fs::path checker = fs::path(build) / "rope_rotation";
        for (int run = 1; run <= 2; ++run) {
            INFO("run " << run);
            const Outcome o = make_in_source(folder, {"exercise", "EXERCISE=rope_rotation", "EXERCISE_BUILD=" + build, "EXERCISE_CONTAIN=" + mode},
                                             "run" + std::to_string(run) + mode);
            INFO("stdout: " << o.out << "\nstderr: " << o.err);
            CHECK(o.status == 2);
            CHECK(holds(o.err, "rope_rotation: wrong answer"));
            CHECK_FALSE(holds(o.out + o.err, "rope_rotation: solved"));
            CHECK(holds(o.err, "forges_the_checker: /tmp: written"));  // the learner's own files have their place
            if (mode.empty()) {
                // The checkout and the build folders are read-only to the learner's code: the checker stays.
                CHECK(holds(o.err, "forges_the_checker: the checker program: not replaced (Read-only file system)"));
                CHECK(holds(o.err, "forges_the_checker: the checkout: not written (Read-only file system)"));
                CHECK(read_bytes(checker.string()).rfind("\x7f" "ELF", 0) == 0);
                CHECK_FALSE(fs::exists(checker.string() + ".fake"));
            } else {
                // The attack works, and make links the checker again before the next run.
                CHECK(holds(o.err, "forges_the_checker: the checker program: replaced"));
            }
        }
    }
}

TEST_CASE("make exercise: learner code that writes a file without end is stopped at the size limit, and the report says so", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the learner's build is the plain one, as above
    Folder folder("exercise_file_limit");
    // 200 MiB into a temporary file were written within the time limit: no limit on a file's size.
    const std::string build = exercise_build_with(folder, "build", "topological_order", "endless_writes_a_file");
    const Outcome o = make_in_source(folder, {"exercise", "EXERCISE=topological_order", "EXERCISE_BUILD=" + build, "EXERCISE_FILE_MIB=1"});
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 2);
    CHECK(holds(o.err, "topological_order: your code wrote a file past the size limit on a file, 1 MiB, so the program was "
                       "stopped (SIGXFSZ): a loop that writes without end, perhaps (make's EXERCISE_FILE_MIB sets the limit)"));
    CHECK_FALSE(holds(o.err, "the signal alone does not say why"));
    // contain itself: the program ends with SIGXFSZ (128 + 25) at --file-bytes, and by default no file
    // grows past 64 MiB (ulimit -f counts blocks of 512 bytes).
    const std::string contain = quoted(build_dir + "/contain");
    const Outcome limited = script(folder, contain + " --file-bytes 1048576 60 " + quoted(build + "/topological_order"), "limited");
    CHECK(limited.status == 153);
    const Outcome by_default = script(folder, contain + " 60 sh -c 'ulimit -f'", "default");
    CHECK(by_default.out == "131072\n");
    for (const char* bad : {"0", "1x", "-5"}) {
        INFO("--file-bytes " << bad);
        const Outcome refused = script(folder, contain + " --file-bytes " + quoted(bad) + " 60 true", "refused");
        CHECK(refused.status == 125);
        CHECK(refused.out.empty());
        CHECK(refused.err.rfind("contain: --file-bytes: '" + std::string(bad) + "' is not a whole number from 1 to 2^50\n", 0) == 0);
    }
}

TEST_CASE("make exercise-train: a step of learner code that never returns ends near each run's limit, which the line names", "[cli][exercises]") {
    if (!this_sanitize().empty()) return;  // the learner's build is the plain one, as above
    // With EXERCISE_TRAIN_SECONDS=5 the run ended only at make's hard limit around the program, 2 x 5 +
    // 60 s (77 s of wall time), saying "more than 70 s": the check of each run's time runs between
    // steps, and this step never ends.
    Folder folder("exercise_train_endless_step");
    const std::string build = exercise_build_with(folder, "build", "rope_rotation", "endless_step");
    const auto start = std::chrono::steady_clock::now();
    // 3 steps: the library's run, before yours, must end within the same limit, on a loaded machine too
    // (20 steps took more than 5 s beside a build).
    const Outcome o = make_in_source(folder, {"exercise-train", "EXERCISE=rope_rotation", "EXERCISE_BUILD=" + build,
                                              "EXERCISE_TRAIN_SECONDS=5", "STEPS=3"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("stdout: " << o.out << "\nstderr: " << o.err << "\n" << seconds << " s");
    CHECK(o.status == 2);
    // Found in your code's first step, which runs before the library's run (so an unwritten exercise is said at once).
    CHECK_FALSE(holds(o.err, "  library: lag"));
    CHECK(holds(o.err, "exercise-train rope_rotation: your run was still in step 1 of 3 after "));
    CHECK(holds(o.err, " s, past each run's limit (EXERCISE_TRAIN_SECONDS=5) and 10 s more: your code has not returned (a loop "
                       "that never ends, or a wait, perhaps), so the run was stopped there"));
    CHECK(holds(o.err, "exercise-train rope_rotation: a run was stopped at its time limit, as said above"));
    CHECK_FALSE(holds(o.err, "more than 70 s"));
    // Your first step to its limit and the grace, make and the link: short of 70 s.
    CHECK(seconds < 60);
}
