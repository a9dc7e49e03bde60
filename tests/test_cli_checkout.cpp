// The checkout and the machine as make finds them: a clone made with core.autocrlf=true checks out LF
// line ends (.gitattributes), a checkout path make's command lines cannot take is refused in one line,
// make experiment without flock says so, the page's agreement check reads numbers alike under any locale,
// and the README's reading table counts the lines each file has.
// Leaves out make's own variables (tests/test_cli_make_variables.cpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
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

TEST_CASE("the page's agreement check compares accuracies as numbers under a locale with a decimal comma", "[cli]") {
    // awk reads "0.900" as 0 where the locale's decimal point is a comma: every difference passed, a
    // check that could not fail there. A German locale, made for this test with localedef (Debian
    // package locales, which make test installs), and two fake programs whose lines differ by 0.4.
    Folder folder("comma_locale");
    const std::string dir = folder.path.string();
    fs::create_directories(folder.path / "locales");
    const Outcome made = script(folder, "localedef -i de_DE -f UTF-8 " + quoted(dir + "/locales/de_DE.UTF-8"));
    INFO("localedef: " << made.out << made.err);
    REQUIRE(fs::exists(dir + "/locales/de_DE.UTF-8"));
    const std::string german = "LOCPATH=" + quoted(dir + "/locales") + " LC_ALL=de_DE.UTF-8 ";
    // The condition itself: under this locale awk reads the point's decimals away.
    REQUIRE(script(folder, german + "awk 'BEGIN { printf \"%.3f\", \"0.900\" + 0 }'").out == "0,000");

    fs::create_directories(folder.path / "native");
    fs::create_directories(folder.path / "web");
    write_bytes(dir + "/web/train_position.js", "");
    const auto fake = [&](const std::string& name, const std::string& line) {
        write_bytes(dir + "/" + name, "#!/bin/sh\necho '" + line + "'\n");
        fs::permissions(dir + "/" + name, fs::perms::owner_all);
    };
    fake("native/train_position", "lag rope seed 0: accuracy 0.500 at 32, 0.400 at 64");
    const std::string check = german + "WEB_NODE=" + quoted(dir + "/node") + " bash " + quoted(source_dir + "/tests/web_agreement.sh") +
                              " " + quoted(dir + "/native") + " " + quoted(dir + "/web") + " 5 lag:rope ''";

    fake("node", "lag rope seed 0: accuracy 0.900 at 32, 0.400 at 64");
    const Outcome apart = script(folder, check);
    INFO("stdout: " << apart.out << "\nstderr: " << apart.err);
    CHECK(apart.status == 1);
    CHECK(holds(apart.out, "[FAILED] lag rope: largest accuracy difference 0.400, past 0.01"));

    fake("node", "lag rope seed 0: accuracy 0.505 at 32, 0.400 at 64");
    const Outcome near = script(folder, check);
    INFO("stdout: " << near.out << "\nstderr: " << near.err);
    CHECK(near.status == 0);
    CHECK(holds(near.out, "[ok] lag rope: largest accuracy difference 0.005"));
}

TEST_CASE("the README's reading table gives each file's line count as it is, and their sum", "[checkout]") {
    const auto text_of = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const std::string readme = text_of(source_dir + "/README.md");
    REQUIRE(!readme.empty());
    // A row: | 18 | [`autograd/gelu.cpp`](autograd/gelu.cpp) | 54 | exact GELU and its slope |
    const std::regex row(R"(\n\| (\d+) \| \[`([^`]+)`\]\([^)]+\) \| (\d+) \|)");
    int64_t files = 0, lines = 0;
    for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row); it != std::sregex_iterator(); ++it) {
        const std::string path = (*it)[2];
        const std::string file = text_of(source_dir + "/" + path);
        INFO("README row " << (*it)[1] << ": " << path);
        REQUIRE(!file.empty());
        const auto counted = std::count(file.begin(), file.end(), '\n');
        CHECK(std::stoll((*it)[3]) == counted);
        ++files;
        lines += counted;
    }
    CHECK(files >= 20);
    // The sentence above the table: "...: 23 files, 1,467 lines;"
    std::smatch said;
    REQUIRE(std::regex_search(readme, said, std::regex(R"(: (\d+) files, (\d+),?(\d*) lines)")));
    CHECK(std::stoll(said[1]) == files);
    CHECK(std::stoll(std::string(said[2]) + std::string(said[3])) == lines);
}
