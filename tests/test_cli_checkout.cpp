// The checkout and the machine as make finds them: a clone made with core.autocrlf=true checks out LF
// line ends (.gitattributes), a checkout path make's command lines cannot take is refused in one line,
// and make experiment without flock says so.
// Leaves out make's own variables (tests/test_cli_make.cpp).
#include <filesystem>
#include <string>
#include <utility>

#include "tests/programs.hpp"  // and the test framework

using namespace wai::testing;
namespace fs = std::filesystem;

TEST_CASE("a clone made with core.autocrlf=true checks every text file out with LF line ends (.gitattributes)", "[cli]") {
    // With CR line ends the shell scripts fail as "not found" (their #! line names "/bin/sh\r") and make
    // passes "--quiet\r" on: the experiment and the exercises broke with misleading errors.
    if (!fs::exists(source_dir + "/.git") || script(Folder("crlf_probe"), "command -v git").status != 0) {
        WARN("not a git checkout, or no git here: the clone with core.autocrlf=true is left out");
        return;
    }
    Folder folder("crlf_clone");
    const std::string clone = folder.path.string() + "/clone";
    const Outcome cloned = script(folder, "git -c core.autocrlf=true clone -q " + quoted(source_dir) + " " + quoted(clone));
    INFO("stdout: " << cloned.out << "\nstderr: " << cloned.err);
    REQUIRE(cloned.status == 0);
    // Every file git counts as text, in the clone's work tree: none holds a CR.
    const Outcome with_cr = script(folder, "cd " + quoted(clone) + " && git grep -I -l \"$(printf '\\r')\" -- . || true");
    INFO("files with CR line ends: " << with_cr.out);
    CHECK(with_cr.status == 0);
    CHECK(with_cr.out.empty());
    CHECK(fs::exists(clone + "/lessons/exercises/selftest.sh"));
}

TEST_CASE("make experiment without flock says so in one line, not that another make holds the results", "[cli]") {
    Folder folder("no_flock");
    // A PATH of every program this machine has but flock.
    const fs::path tools = folder.path / "bin";
    fs::create_directories(tools);
    for (const char* dir : {"/usr/local/bin", "/usr/bin", "/bin"}) {
        std::error_code error;
        for (const auto& entry : fs::directory_iterator(dir, error)) {
            const fs::path name = entry.path().filename();
            if (name == "flock" || fs::exists(fs::symlink_status(tools / name))) continue;
            fs::create_symlink(entry.path(), tools / name);
        }
    }
    REQUIRE_FALSE(fs::exists(tools / "flock"));
    const std::string results = folder.path.string() + "/results";
    for (const char* goal : {"experiment", "plots"}) {
        INFO(goal);
        const Outcome o = script(folder, "cd " + quoted(source_dir) + " && PATH=" + quoted(tools.string()) + " make " + goal +
                                             " RESULTS=" + quoted(results));
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "flock is missing: make " + std::string(goal) + " locks " + results + " with it; install the Debian package util-linux"));
        CHECK_FALSE(holds(o.err, "another make"));
        CHECK_FALSE(fs::exists(results));
    }
}

TEST_CASE("a checkout whose path holds a quote, a blank, a newline or a shell character is refused in one line", "[cli]") {
    // Such a path reaches the compiler's flags and the shell's command lines, where make lessons and make
    // test broke on it with a missing file or a shell syntax error.
    if (!fs::exists(source_dir + "/.git") || script(Folder("odd_path_probe"), "command -v git").status != 0) {
        WARN("not a git checkout, or no git here: the clones in odd paths are left out");
        return;
    }
    Folder folder("odd_checkout_paths");
    const std::pair<std::string, std::string> cases[] = {
        {"it's", "the character '"}, {"two words", "a space"}, {"new\nline", "a newline"}, {"cost$5", "the character $"},
        {"semi;colon", "the character ;"},
    };
    for (const auto& [name, said] : cases) {
        INFO(name);
        const std::string clone = folder.path.string() + "/" + name + "/whereami";
        const Outcome cloned = script(folder, "git clone -q " + quoted(source_dir) + " " + quoted(clone));
        REQUIRE(cloned.status == 0);
        const Outcome o = script(folder, "cd " + quoted(clone) + " && make test");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err_lines() == 1);
        CHECK(holds(o.err, "the checkout's path holds " + said + ", which the build's command lines cannot take"));
        CHECK_FALSE(fs::exists(clone + "/build"));
    }
    // A letter beyond ASCII is no such character: make reads on (help builds nothing).
    const std::string accented = folder.path.string() + "/h\xc3\xa9l\xc3\xa8ne/whereami";
    REQUIRE(script(folder, "git clone -q " + quoted(source_dir) + " " + quoted(accented)).status == 0);
    CHECK(script(folder, "cd " + quoted(accented) + " && make help").status == 0);
}
