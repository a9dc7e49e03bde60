// The other programs' command lines: bench_step and the lessons refuse a bad argument with one line
// and exit code 2; bench_step --shapes lists the products furthest above their floor; lesson 06 --try
// answers each line it cannot use and goes on; the collectors, bench_step and the lessons refuse a
// repeated flag, an empty value and a signed number.
// Leaves out train_position's arguments (tests/test_cli_arguments.cpp), the collectors' outputs and
// prune (tests/test_cli_collectors.cpp, tests/test_cli_prune.cpp) and make's settings
// (tests/experiment_resume.sh).
#include "tests/catch.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/programs.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

TEST_CASE("bench_step: a bad flag is refused with one line and exit code 2, before any timing", "[cli]") {
    Folder folder("bench_step");
    const std::pair<const char*, const char*> cases[] = {
        {"--stesp 5", "unknown argument '--stesp'"},
        {"--steps", "--steps needs a value"},
        {"--steps 5x", "--steps needs a whole number from 1 to 100000, got '5x'"},
        {"--threads 0", "--threads must be a whole number from 1 to "},
        {"--repeats <empty>", "--repeats needs a value, got an empty one"},
        {"--kernels fused", "--kernels needs plain, fast or both, got 'fused'"},
        {"--scaling 1", "--scaling needs a thread count from 2 to 64, got '1'"},
        {"--scaling 65", "--scaling needs a thread count from 2 to 64, got '65'"},
        {"--scaling 0", "--scaling needs a thread count from 2 to 64, got '0'"},  // one range, whatever the value
        {"--scaling 100001", "--scaling needs a thread count from 2 to 64, got '100001'"},
        {"--scaling 2 --threads 2", "it takes no --threads or --kernels"},
        {"--scaling 2 --kernels fast", "it takes no --threads or --kernels"},
        {"--dim 63", "--dim needs a whole number from 2 to 4096 (even: RoPE turns pairs), got '63'"},
        {"--dim 0", "--dim needs a whole number from 2 to 4096 (even: RoPE turns pairs), got '0'"},
        {"--layers 65", "--layers needs a whole number from 1 to 64, got '65'"},
        {"--length 4097", "--length needs a whole number from 4 to 4096, got '4097'"},
        {"--length 3", "--length needs a whole number from 4 to 4096, got '3'"},  // the lag is 3: nothing to score
        {"--batch -1", "--batch needs a whole number from 1 to 4096, got '-1'"},
        {"--batch 1e3", "--batch needs a whole number from 1 to 4096, got '1e3'"},
        {"--shapes 0", "--shapes needs a whole number from 1 to 100000, got '0'"},
        {"--shapes all", "--shapes needs a whole number from 1 to 100000, got 'all'"},
        {"--scaling 2 --shapes 3", "--scaling times whole steps: it takes no --shapes"},
        {"--train-step 0", "--train-step needs a thread count from 1 to 64, got '0'"},
        {"--train-step 65", "--train-step needs a thread count from 1 to 64, got '65'"},
        {"--train-step two", "--train-step needs a thread count from 1 to 64, got 'two'"},
        {"--train-step 2 --threads 2", "it takes no --scaling, --threads, --kernels or --shapes"},
        {"--train-step 2 --scaling 2", "it takes no --scaling, --threads, --kernels or --shapes"},
        {"--train-step 1 --kernels fast", "it takes no --scaling, --threads, --kernels or --shapes"},
        {"--steps --repeats 3", "--steps needs a value, got the flag '--repeats'"},
        {"--steps 3 -h", "-h stands alone (bench_step --help), got it with other arguments"},
    };
    for (const auto& [line, message] : cases) {
        INFO("bench_step " << line);
        check_one_line_refusal(run(folder, "bench_step", words(line)), 2, "bench_step", message);
    }
    const Outcome help = run(folder, "bench_step", {"--help"});
    CHECK(help.status == 0);
    CHECK_THAT(help.out, StartsWith("usage: bench_step"));
    CHECK(help.err.empty());
}

TEST_CASE("bench_step --shapes N: the N products furthest above their floor, one line each, the furthest first", "[cli]") {
    Folder folder("bench_shapes");
    const Outcome o = run(folder, "bench_step", words("--steps 1 --repeats 1 --kernels fast --shapes 3"));
    REQUIRE(o.status == 0);
    CHECK(o.err == "");
    // The chapter's model makes 15 product shapes a step: q, k and v with the attention's output,
    // the MLP's two layers, the head, the per-sequence attention products, and their backward.
    CHECK_THAT(o.out, ContainsSubstring("bench: fast kernels: the 3 products with the most time above their floor (of 15 shapes):\n"));
    const std::regex line(R"(bench: fast kernels: product [NT][NT] M (\d+) N (\d+) K (\d+), (\d+\.\d) calls a step: )"
                          R"((\d+\.\d\d) us a call in the step, (\d+\.\d\d) alone \((\d+\.\d\d)x\), (-?\d+\.\d\d\d) ms a step above its floor)");
    std::vector<double> above;
    std::istringstream lines(o.out);
    for (std::string text; std::getline(lines, text);) {
        if (text.find(" product ") == std::string::npos) continue;
        std::smatch m;
        INFO(text);
        REQUIRE(std::regex_match(text, m, line));
        CHECK(std::stod(m[4]) >= 1.0);  // every shape recorded was called at least once a step
        CHECK(std::stod(m[6]) > 0.0);
        above.push_back(std::stod(m[8]));
    }
    REQUIRE(above.size() == 3);
    CHECK(std::is_sorted(above.rbegin(), above.rend()));
    // Without --shapes, no product lines.
    const Outcome plain = run(folder, "bench_step", words("--steps 1 --repeats 1 --kernels fast"));
    REQUIRE(plain.status == 0);
    CHECK(plain.out.find(" product ") == std::string::npos);
}

TEST_CASE("lessons: an argument a lesson does not take is refused with one line and exit code 2", "[cli]") {
    Folder folder("lessons");
    int lessons = 0;
    for (const auto& entry : fs::directory_iterator(build_dir + "/lessons")) {
        const std::string name = entry.path().filename().string();
        if (name.find('.') != std::string::npos || access(entry.path().c_str(), X_OK) != 0) continue;
        INFO(name);
        const Outcome o = run(folder, "lessons/" + name, {"--bogus"});
        check_one_line_refusal(o, 2, build_dir + "/lessons/" + name, "unknown argument '--bogus'");
        ++lessons;
    }
    CHECK(lessons >= 11);
    check_one_line_refusal(run(folder, "lessons/06_rope_exercise", {"--try", "extra"}), 2,
                           build_dir + "/lessons/06_rope_exercise",
                           "unknown argument 'extra': this lesson takes --try, at most once, and nothing else");
    // A lesson is the reading path: the plain model always, no --kernels (startup/kernels_choice.hpp).
    check_one_line_refusal(run(folder, "lessons/05_rope", {"--kernels", "plain"}), 2, build_dir + "/lessons/05_rope",
                           "unknown argument '--kernels': this lesson takes no arguments");
}

TEST_CASE("lesson 06 --try: each line it cannot use is answered with one line, and it goes on", "[cli]") {
    Folder folder("lesson06_try");
    // Nine lines it does not understand (a shift is one sign and digits: "+-5" and "--5" are not), four
    // positions or shifts out of range (one that would overflow int64 if added first), then a good
    // line, then q.
    const std::string input = "abc\n3\n3 x\n\n+\n3 103 7\n+-5\n--5\n+ 5\n-5 3\n1000001 5\n+9223372036854775807\n"
                              "-9223372036854775808\n13 113\nq\n";
    const Outcome o = run(folder, "lessons/06_rope_exercise", {"--try"}, input);
    INFO(o.out << o.err);
    CHECK(o.status == 0);
    const auto count = [&](const std::string& text) {
        size_t n = 0;
        for (size_t at = o.out.find(text); at != std::string::npos; at = o.out.find(text, at + 1)) ++n;
        return n;
    };
    CHECK(count("  not understood: '") == 9);
    CHECK(count("  positions run from 0 to 1000000") == 2);
    CHECK(count("  a shift is at most 1000000 either way") == 2);
    CHECK_THAT(o.out, ContainsSubstring("query at      13, key at     113 (distance    +100)"));
    CHECK_THAT(o.out, ContainsSubstring("lesson 06: ok"));
}

TEST_CASE("the collectors, bench_step and the lessons refuse a repeated flag, an empty value and a signed number", "[cli]") {
    Folder folder("repeated_flags");
    fs::create_directories(folder.path / "runs");
    const auto refused = [&](const std::string& program, const std::vector<std::string>& args, const std::string& name,
                             const std::string& fragment) {
        INFO(program << " " << [&] { std::string s; for (auto& a : args) s += "[" + a + "] "; return s; }());
        check_one_line_refusal(run(folder, program, args), 2, name, fragment);
    };
    for (const std::string collector : {"collect_results", "collect_extension"}) {
        // --prune RUNS_DIR SEED... and --prune RESULTS LENGTHS SEED...
        const std::vector<std::string> prune = collector == "collect_results" ? std::vector<std::string>{"--prune", "runs"}
                                                                              : std::vector<std::string>{"--prune", "runs", "32,64"};
        refused(collector, concat({"--prune"}, concat(prune, {"0"})), collector, "--prune is given twice");
        refused(collector, concat(prune, {"0", "--run-flags", ""}), collector, "--run-flags must come before the folder");
        refused(collector, {"--prune", "--run-flags", "", "--run-flags", "", "runs", "0"}, collector, "--run-flags is given twice");
        refused(collector, {"--prune", "--run-flags"}, collector, "--run-flags needs a value");
        refused(collector, {"--run-flags", "", "--prune", "runs", "0"}, collector, "--prune must come first");
        refused(collector, concat(prune, {"0", "--prune"}), collector, "--prune is given twice");
        refused(collector, concat(prune, {"0", "--seeds"}), collector, "unknown flag '--seeds'");
        refused(collector, concat(prune, {"", "0"}), collector, "is empty; every argument needs a value");
        for (const std::string seed : {"+1", " 1", "1 ", "0x1", "1e1", "-1", "99999999999999999999", "\xff\n"})
            refused(collector, concat(prune, {seed}), collector, "a SEED must be a non-negative integer below 10^18");
    }
    refused("collect_results", {"runs", "t", "a", "b", "0", "--prune"}, "collect_results", "--prune must come first");
    // make passes RUN_FLAGS as one value, which may be empty or hold flags of its own: taken, not refused.
    for (const std::string flags : {"", "--steps 30", "  --lr  0.002 --steps 30 "}) {
        INFO("--run-flags [" << flags << "]");
        const Outcome results = run(folder, "collect_results", {"--prune", "--run-flags", flags, "runs", "0", "1"});
        CHECK(results.status == 0);
        CHECK(results.err == "");
        const Outcome extension = run(folder, "collect_extension", {"--prune", "--run-flags", flags, "runs", "32,64", "0"});
        CHECK(extension.status == 0);
        CHECK(extension.err == "");
    }
    refused("collect_extension", {"--prune", "runs", "32,+64", "0"}, "collect_extension", "LENGTHS must be whole numbers");
    for (const char* flag : {"--steps", "--repeats", "--threads", "--kernels"}) {
        const std::string value = flag == std::string("--kernels") ? "fast" : "1";
        refused("bench_step", {flag, value, flag, value}, "bench_step", std::string(flag) + " is given twice");
        refused("bench_step", {flag, ""}, "bench_step", std::string(flag) + " needs a value, got an empty one");
    }
    for (const std::string value : {"+5", " 5", "5 ", "0x10", "1e3", "-5", "99999999999999999999"})
        refused("bench_step", {"--steps", value}, "bench_step", "--steps needs a whole number from 1 to 100000, got '" + value + "'");
    refused("bench_step", {"--threads", "+1"}, "bench_step", "--threads must be a whole number from 1 to ");
    const std::string lesson = build_dir + "/lessons/05_rope";
    refused("lessons/05_rope", {""}, lesson, "unknown argument '': this lesson takes no arguments");
    refused("lessons/06_rope_exercise", {"--try", "--try"}, build_dir + "/lessons/06_rope_exercise", "--try is given twice");
    refused("lessons/05_rope", {"\xff\n"}, lesson, "unknown argument '\\xff\\x0a'");
}
