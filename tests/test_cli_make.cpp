// make's goals through the real Makefile (make -C the source tree, as a user types it): nothing to
// rebuild once make test has built it; make experiment again redoes a run whose weights are garbage;
// a picture that cannot be written whole (a file-size limit, a full tmpfs) is not drawn, nor one from
// data no collector wrote or from another run's weights; make plots draws as many layers as the models have; make experiment MY_SCHEMES runs a learner's own scheme
// under its own name; make lessons-run leaves lesson 06 for after its exercise, saying how to run it;
// make -j web waits for Emscripten's set-up; make -f from another folder says to use make -C.
// Leaves out make's variables (tests/test_cli_make_variables.cpp), the exercises' make goals
// (tests/test_cli_exercises.cpp), the experiment's runs themselves (tests/experiment_resume.sh, make
// test-experiment) and the exercise checkers' verdicts (lessons/exercises/selftest.sh).
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

    // A data file no collector wrote (overwritten, emptied, edited by hand: gnuplot drew 7.5 and nan as
    // given) is refused before anything is drawn: make plots fails, naming the line, the old pictures stay.
    const std::string lag_data = read_bytes(results + "/data/lag.dat");
    const size_t first_row = lag_data.find('\n', lag_data.find('\n') + 1) + 1;  // after the heading and the columns line
    const std::string row = lag_data.substr(first_row, lag_data.find(' ', first_row) - first_row + 1);  // "32 "
    const std::pair<std::string, std::string> bad_data[] = {
        {"garbage here\n", "line 1: not a heading the collectors write"},
        {"", "line 1: no row of accuracies"},
        {lag_data.substr(0, first_row + row.size()) + "7.5" + lag_data.substr(first_row + row.size() + 5), "line 3: \"7.5\" is not an accuracy"},
        {lag_data.substr(0, first_row + row.size()) + "nan  " + lag_data.substr(first_row + row.size() + 5), "line 3: \"nan\" is not an accuracy"},
        {lag_data + "256 0.5\n", "line 6: 2 fields where the columns line has"},
    };
    for (const auto& [bad, said] : bad_data) {
        INFO("data/lag.dat: '" << bad << "'");
        write_bytes(results + "/data/lag.dat", bad);
        const Outcome o = make_in_source(folder, concat({"plots"}, settings), "corrupt");
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.status != 0);
        CHECK(holds(o.err, "plots: " + results + "/data/lag.dat " + said));
        CHECK_FALSE(holds(o.out, "svg and .png"));
        CHECK(files_under(results + "/plots") == pictures);
        CHECK(leftovers_under(results, ".draw.") == 0);
    }
    write_bytes(results + "/data/lag.dat", lag_data);
    // Another run's weights in the rope run's place would be drawn as rope's map: refused, naming both runs.
    const std::string rope_weights = results + "/runs/lag_rope_seed0.safetensors";
    const std::string rope_bytes = read_bytes(rope_weights);
    write_bytes(rope_weights, read_bytes(results + "/runs/lag_learned_seed0.safetensors"));
    const Outcome swapped = make_in_source(folder, concat({"plots"}, settings), "swapped");
    INFO("stdout: " << swapped.out << "\nstderr: " << swapped.err);
    CHECK(swapped.status != 0);
    CHECK(holds(swapped.err, "attention_maps: " + rope_weights + ": its metadata names the run lag learned seed 0, not lag rope seed 0"));
    CHECK_FALSE(holds(swapped.out, "svg and .png"));
    CHECK(files_under(results + "/plots") == pictures);
    write_bytes(rope_weights, rope_bytes);

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

TEST_CASE("make lessons-run runs the lessons in order, 06 once its exercise is solved; until then it says how to run it", "[cli]") {
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
    CHECK(holds(o.out, "     Your exercise now: [not yet] rope_rotation: "));  // the scaffold as shipped
    if (!this_sanitize().empty()) return;  // the fixtures below come from the plain build's self-test
    // Solved (the board's check on a checker built with the right answer; `true` stands in for the make
    // that would build it), lesson 06 runs in its place; a wrong answer leaves it waiting, and says so.
    for (const auto& [fixture, runs] : {std::pair<std::string, bool>{"right", true}, {"wrong_backwards", false}}) {
        INFO(fixture);
        const fs::path built = folder.path / fixture / "rope_rotation";
        fs::create_directories(built.parent_path());
        fs::create_symlink(build_dir + "/exercises/fixtures/rope_rotation/" + fixture, built);
        const Outcome after = make_in_source(folder, {"lessons-run", "LESSON_PROGRAMS=" + programs,
                                                      "EXERCISE_BUILD=" + built.parent_path().string(), "LESSONS_BOARD_MAKE=true"},
                                             fixture);
        INFO("stdout: " << after.out << "\nstderr: " << after.err);
        CHECK(after.status == 0);
        CHECK(holds(after.out, "ran 06_rope_exercise") == runs);
        CHECK(holds(after.out, "==== 06_rope_exercise   (the worked solution of lessons/exercises/rope_rotation.cpp, which you "
                               "have solved)") == runs);
        if (!runs) CHECK(holds(after.out, "     Your exercise now: [WRONG]   rope_rotation: "));
        CHECK(after.out.find("ran 05_rope") < after.out.find("==== 06_rope_exercise"));
        CHECK(after.out.find("==== 06_rope_exercise") < after.out.find("ran 07_pairing_trap"));
    }
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
