// What the programs write, run as a user runs them: --save never goes through a link or onto a
// device or folder, and leaves a whole file or none (ulimit -f, two saves at once); a program whose
// standard output cannot be written (/dev/full, a closed pipe, ulimit -f) fails with one line; the
// same run prints the same line and saves the same bytes, alone or two at once.
// Leaves out the result files of make experiment (tests/experiment_resume.sh).
#include "tests/catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/programs.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

// The files in `folder` whose names hold ".tmp": what a write that failed or was killed left behind.
std::vector<std::string> temporary_files(const Folder& folder) {
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(folder.path))
        if (entry.path().filename().string().find(".tmp") != std::string::npos) left.push_back(entry.path().string());
    return left;
}

}  // namespace

TEST_CASE("train_position: the same run prints the same line and saves the same bytes, alone or two at once", "[cli]") {
    Folder folder("determinism");
    for (const char* run_line : {"lag rope 0 --threads 1", "seen alibi:0.5 1 --threads 2", "lag learned 2 --threads 2"}) {
        INFO(run_line);
        const auto args = [&](const std::string& weights) {
            return concat(words(run_line), words("--steps 20 --dim 16 --heads 2 --mlp 32 --layers 2 --batch 8 "
                                                 "--eval-seqs 16 --save " + weights));
        };
        const Outcome alone = run(folder, "train_position", args("alone.safetensors"));
        const Outcome again = run(folder, "train_position", args("again.safetensors"));
        const auto [first, second] = run_two_at_once(folder, args("first.safetensors"), args("second.safetensors"));
        REQUIRE(alone.status == 0);
        CHECK_THAT(alone.out, ContainsSubstring(" seed "));
        for (const Outcome* o : {&again, &first, &second}) CHECK(o->out == alone.out);
        const std::string bytes = read_bytes(folder.file("alone.safetensors"));
        CHECK(bytes.size() > 1000);
        for (const char* other : {"again.safetensors", "first.safetensors", "second.safetensors"})
            CHECK(read_bytes(folder.file(other)) == bytes);
    }
    // Not a vacuous comparison: another seed gives other weights.
    REQUIRE(run(folder, "train_position", tiny_with({"--save", "s0"}, "lag rope 0")).status == 0);
    REQUIRE(run(folder, "train_position", tiny_with({"--save", "s1"}, "lag rope 1")).status == 0);
    CHECK_FALSE(read_bytes(folder.file("s0")) == read_bytes(folder.file("s1")));
}

TEST_CASE("train_position --save: never through a link, never onto a device or folder, whole or not at all", "[cli]") {
    Folder folder("save_targets");
    const auto save_to = [&](const std::string& target, const std::string& seed = "0") {
        return run(folder, "train_position", tiny_with({"--save", target}, "lag rope " + seed));
    };
    REQUIRE(save_to(folder.file("victim")).status == 0);
    const std::string victim = read_bytes(folder.file("victim"));
    REQUIRE(victim.size() > 100);

    // A symbolic link at the target is refused, and neither it nor the file it points to changes.
    fs::create_symlink(folder.file("victim"), folder.file("link"));
    check_one_line_refusal(save_to(folder.file("link"), "1"), 2, "train_position", "it is a symbolic link");
    CHECK(fs::is_symlink(folder.file("link")));
    CHECK(read_bytes(folder.file("victim")) == victim);
    // A dangling link too: following it would create a file wherever it points.
    fs::create_symlink(folder.file("nowhere"), folder.file("dangling"));
    check_one_line_refusal(save_to(folder.file("dangling")), 2, "train_position", "it is a symbolic link");
    CHECK_FALSE(fs::exists(folder.file("nowhere")));
    // The old fixed temporary name, planted as a link to the victim, is never written through.
    fs::create_symlink(folder.file("victim"), folder.file("out.tmp"));
    REQUIRE(save_to(folder.file("out"), "1").status == 0);
    CHECK(read_bytes(folder.file("victim")) == victim);
    CHECK(read_bytes(folder.file("out")) != victim);
    fs::remove(folder.file("out.tmp"));

    // Devices, folders and FIFOs are refused before the training, and stay what they were.
    check_one_line_refusal(save_to("/dev/null"), 2, "train_position", "--save /dev/null: it exists and is a character device");
    CHECK(fs::is_character_file("/dev/null"));
    check_one_line_refusal(save_to(folder.path.string()), 2, "train_position", "it exists and is a folder");
    check_one_line_refusal(save_to(folder.file("sub") + "/"), 2, "train_position", "it names a folder, not a file");
    REQUIRE(mkfifo(folder.file("fifo").c_str(), 0600) == 0);
    check_one_line_refusal(save_to(folder.file("fifo")), 2, "train_position", "it exists and is a FIFO");
    check_one_line_refusal(save_to(folder.file("missing/w")), 2, "train_position", "the folder '" + folder.file("missing") + "' does not exist");

    // Past a file-size limit the save fails with one line (EFBIG, not SIGXFSZ), the old file is
    // whole, and no temporary file is left.
    const Outcome limited = script(folder, "ulimit -f 2; exec " + program_path("train_position") + " " +
                                               tiny_line("lag rope 1", {"--dim", "32", "--mlp", "64"}) + " --save " + quoted(folder.file("victim")));
    check_one_line_refusal(limited, 1, "train_position", "cannot write " + folder.file("victim") + ": writing it failed (File too large)");
    CHECK(read_bytes(folder.file("victim")) == victim);
    CHECK(temporary_files(folder).empty());

    // Two saves to one path at once: each writes its own temporary file, and the path holds one of
    // the two whole files.
    REQUIRE(save_to(folder.file("seed2"), "2").status == 0);
    REQUIRE(save_to(folder.file("seed3"), "3").status == 0);
    const std::string two = read_bytes(folder.file("seed2")), three = read_bytes(folder.file("seed3"));
    REQUIRE(two != three);
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto [first, second] = run_two_at_once(folder, tiny_with({"--save", folder.file("shared")}, "lag rope 2"),
                                                     tiny_with({"--save", folder.file("shared")}, "lag rope 3"));
        CHECK(first.err.empty());
        CHECK(second.err.empty());
        const std::string shared = read_bytes(folder.file("shared"));
        CHECK((shared == two || shared == three));
    }
    CHECK(temporary_files(folder).empty());
    // A new file gets the mode a plain create would give, not mkstemp's 0600.
    CHECK((fs::status(folder.file("shared")).permissions() & fs::perms::others_read) != fs::perms::none);
}

TEST_CASE("every program fails with one line when standard output cannot be written", "[cli]") {
    Folder folder("stdout_failures");
    fs::create_directories(folder.path / "runs");
    write_bytes(folder.file("runs/lag_none_seed0.txt"), "not a result line\n");  // --prune reports it on stdout
    const std::vector<std::pair<std::string, std::string>> programs = {
        {"train_position", tiny_line("lag rope 0")},
        {"train_position", "--help"},
        {"lessons/03_sinusoids", ""},
        {"bench_step", "--steps 1 --repeats 1 --kernels fast"},
        {"collect_results", "--prune runs 0"},
    };
    for (const auto& [program, args] : programs) {
        INFO(program << " " << args);
        const std::string name = fs::path(program).filename().string();
        const std::string command = program_path(program) + " " + args;
        write_bytes(folder.file("runs/lag_none_seed0.txt"), "not a result line\n");
        check_one_line_refusal(script(folder, "exec " + command + " > /dev/full"), 1, name,
                               "cannot write to standard output (No space left on device)");
        write_bytes(folder.file("runs/lag_none_seed0.txt"), "not a result line\n");
        // A closed pipe: one whose reader has ended before the program starts, so that its first write
        // fails whatever the timing (with `| head -c0` a program that wrote its few lines before head
        // ended wrote them into the pipe's buffer, and passed or failed by the machine's load). The
        // reader opens a FIFO and ends; the program gets the FIFO's write end only once it has.
        const Outcome piped = script(folder, "rm -f closed.fifo && mkfifo closed.fifo || exit 9; { exec 0<closed.fifo; } & "
                                             "exec 3>closed.fifo; wait $!; exec " + command + " 2>piped.err >&3 3>&-");
        const Outcome closed{piped.status, "", read_bytes(folder.file("piped.err"))};
        check_one_line_refusal(closed, 1, name, "cannot write to standard output (Broken pipe)");
        // No standard output at all (>&-): refused before any work.
        write_bytes(folder.file("runs/lag_none_seed0.txt"), "not a result line\n");
        check_one_line_refusal(script(folder, "exec " + command + " >&-"), 1, name,
                               "standard output is closed; nothing run (give it a file, a pipe or a terminal; > /dev/null to drop it)");
        CHECK(read_bytes(folder.file("runs/lag_none_seed0.txt")) == "not a result line\n");  // the prune did not run
    }
    // train_position --save with no standard output trained, saved, then failed on its result line:
    // exit 1 with the weights written. Now nothing is trained or saved.
    const Outcome unsaved = script(folder, "exec " + program_path("train_position") + " " + tiny_line("lag rope 0") + " --save w.safetensors >&-");
    CHECK(unsaved.status == 1);
    CHECK_FALSE(fs::exists(folder.path / "w.safetensors"));
    // Past a file-size limit: --help is longer than 1024 bytes.
    const Outcome limited = script(folder, "ulimit -f 1; exec " + program_path("train_position") + " --help > help.txt");
    check_one_line_refusal(limited, 1, "train_position", "cannot write to standard output (File too large)");
}
