// The lessons as tests: every lesson program is run and must end with "lesson NN: ok" and exit 0,
// so a change to the engine that breaks one of the chapter's claims fails `make test`. Tagged
// [lessons] and [lessonNN]. Lesson 06's --try mode is fed a short session on stdin.
// Leaves out what each lesson checks: the lessons check their own claims (lessons/).
#include "tests/catch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Run {
    std::string output;
    int exit_code = -1;
};

// Runs a shell command, collecting stdout and stderr and the exit code.
Run run(const std::string& command) {
    Run result;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer;
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string lesson_path(const std::string& number) {
    for (const auto& entry : std::filesystem::directory_iterator(WAI_LESSONS_DIR))
        if (entry.path().filename().string().rfind(number + "_", 0) == 0 && !entry.path().has_extension())
            return entry.path().string();
    FAIL("no lesson " << number << " in " << WAI_LESSONS_DIR << " (make lessons builds them)");
    return "";
}

void check_lesson(const std::string& number) {
    const Run r = run(lesson_path(number));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("lesson " + number + ": ok\n") != std::string::npos);
}

}  // namespace

TEST_CASE("lesson 00: the engine's backward equals derivatives by hand", "[lessons][lesson00]") { check_lesson("00"); }
TEST_CASE("lesson 01: attention is permutation-equivariant without the causal mask only", "[lessons][lesson01]") { check_lesson("01"); }
TEST_CASE("lesson 02: the learned table refuses a position past its rows", "[lessons][lesson02]") { check_lesson("02"); }
TEST_CASE("lesson 03: every sinusoid position is unique", "[lessons][lesson03]") { check_lesson("03"); }
TEST_CASE("lesson 04: ALiBi's slopes and what a penalty cannot do", "[lessons][lesson04]") { check_lesson("04"); }
TEST_CASE("lesson 05: RoPE scores depend only on the distance", "[lessons][lesson05]") { check_lesson("05"); }
TEST_CASE("lesson 06: the course's exercise, worked", "[lessons][lesson06]") { check_lesson("06"); }
TEST_CASE("lesson 07: the pairing trap, and its repair", "[lessons][lesson07]") { check_lesson("07"); }
TEST_CASE("lesson 08: the two tasks, trained briefly", "[lessons][lesson08]") { check_lesson("08"); }
TEST_CASE("lesson 09: log-length scaling sharpens a flattened softmax", "[lessons][lesson09]") { check_lesson("09"); }
TEST_CASE("lesson 10: the wavelength table", "[lessons][lesson10]") { check_lesson("10"); }
TEST_CASE("lesson 11: context extension on a model trained here", "[lessons][lesson11]") { check_lesson("11"); }

TEST_CASE("lesson 06 --try: positions typed, a shift, a mistake, then q", "[lessons][lesson06]") {
    const Run r = run("printf '3 103\\n+5\\nabc\\nq\\n' | " + lesson_path("06") + " --try");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    // The worked solution says what it is before anything else, --try or not (lessons/README.md).
    CHECK(r.output.rfind("This lesson is the worked solution of the exercise", 0) == 0);
    CHECK(r.output.find("query at       8, key at     108 (distance    +100)") != std::string::npos);
    CHECK(r.output.find("not understood: 'abc'") != std::string::npos);
}

TEST_CASE("lesson 00 under a file-size limit: its graph's pictures are whole or not drawn", "[lessons][lesson00]") {
    if (std::system("command -v dot >/dev/null 2>&1") != 0) return;  // no Graphviz: no pictures to judge
    const std::string folder = std::filesystem::path(lesson_path("00")).parent_path().string();
    // 8 KiB holds the DOT file (under 1 KiB) but neither picture: dot exits 0 after a cut write.
    const Run r = run("ulimit -f 8; " + lesson_path("00"));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("lesson 00: ok\n") != std::string::npos);
    CHECK(r.output.find("dot could not draw " + folder + "/00_engine_graph.svg") != std::string::npos);
    CHECK(r.output.find("drawn: " + folder + "/00_engine_graph.svg") == std::string::npos);
    for (const char* left : {"/00_engine_graph.drawing.svg", "/00_engine_graph.drawing.png"})
        CHECK_FALSE(std::filesystem::exists(folder + left));
    // And without the limit it draws both again, whole.
    const Run again = run(lesson_path("00"));
    CHECK(again.output.find("drawn: " + folder + "/00_engine_graph.svg") != std::string::npos);
    CHECK(again.output.find("drawn: " + folder + "/00_engine_graph.png") != std::string::npos);
}

TEST_CASE("lesson 00 draws every node's gradient, the interior ones too", "[lessons][lesson00]") {
    const std::string folder = std::filesystem::path(lesson_path("00")).parent_path().string();
    const Run r = run(lesson_path("00"));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    std::ifstream file(folder + "/00_engine_graph.dot");
    std::stringstream dot;
    dot << file.rdbuf();
    INFO(dot.str());
    // One box per value: x needs no gradient; every other value shows its own, loss its seed 1.
    for (const char* name : {"W", "b", "xW", "y", "y_squared"})
        CHECK(dot.str().find(std::string("{") + name + " | ") != std::string::npos);
    CHECK(dot.str().find("| grad none kept") == std::string::npos);
    CHECK(dot.str().find("{x | leaf (2, 2) | value [1 2; 3 4] | grad not needed}") != std::string::npos);
    CHECK(dot.str().find("{loss | sum () | value ") != std::string::npos);
    CHECK(dot.str().find("| grad [1]}") != std::string::npos);
    size_t gradients = 0;
    for (size_t at = dot.str().find("| grad ["); at != std::string::npos; at = dot.str().find("| grad [", at + 1)) ++gradients;
    CHECK(gradients == 6);
}

TEST_CASE("lesson 00 that cannot write its drawing says so, and its claims still hold on the DOT text", "[lessons][lesson00]") {
    // A folder where the DOT file cannot be written (a read-only checkout; here, as root may write
    // anywhere, a folder already standing at the file's path): the lesson says why there is no
    // drawing, and the chapter's claims, which are about the graph, not the disk, hold.
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("whereami_lesson00_no_drawing_" + std::to_string(getpid()));
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder / "00_engine_graph.dot");
    std::filesystem::copy_file(lesson_path("00"), folder / "00_engine");
    std::filesystem::permissions(folder / "00_engine", std::filesystem::perms::owner_all);
    const Run r = run((folder / "00_engine").string());
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("lesson 00: ok\n") != std::string::npos);
    CHECK(r.output.find("  no drawing: cannot write " + (folder / "00_engine_graph.dot").string()) != std::string::npos);
    CHECK(r.output.find("[FAILED]") == std::string::npos);
    std::filesystem::remove_all(folder);
}
