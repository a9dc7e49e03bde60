// The prune the collectors run before make experiment's runs: a run whose weights are not a
// safetensors file of that run is redone, its weights removed with it; a live run's temporary files
// are left alone and a killed run's removed; a folder in a file's place is refused, and so is a file
// in the runs' folder's place; a result made with other RUN_FLAGS is set aside and put back when those
// flags come again.
// Leaves out the collectors' outputs (tests/test_cli_collectors.cpp).
#include "tests/catch.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "experiment/results_files.hpp"
#include "files/weights_file.hpp"
#include "tests/programs.hpp"
#include "tests/results_fixtures.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

TEST_CASE("the prune redoes a run whose weights are not a readable safetensors file of that run, and says why", "[cli]") {
    // Garbage in a finished run's weights (echo garbage > RUNS/lag_rope_seed1.safetensors) was kept as the
    // run's: fault() asked only that a regular file be there.
    Folder folder("prune_weights");
    write_finished_experiment(folder);  // every other run finished: the collector names this one
    const std::string line = result_line("lag", "rope", 0, {32, 64, 128});
    const std::string result = folder.file("runs/lag_rope_seed0.txt"), weights = folder.file("runs/lag_rope_seed0.safetensors");
    const std::string other = folder.file("other.safetensors");
    const auto finished = [&](const std::function<void()>& write_weights) {
        write_bytes(result, line + "\nsettings: train_position lag rope 0\n");
        write_weights();
    };
    const auto prune = [&] { return run(folder, "collect_results", {"--prune", "--run-flags", "", "runs", "0"}); };
    const struct {
        std::string name;
        std::function<void()> write_weights;
        std::string reason;
    } cases[] = {
        {"garbage", [&] { write_bytes(weights, "garbage\n"); },
         "has weights beside it that are not a readable safetensors file (weights file 'runs/lag_rope_seed0.safetensors': "},
        {"cut", [&] { write_run_weights(other, "lag", "rope", 0); write_bytes(weights, read_bytes(other).substr(0, 100)); },
         "has weights beside it that are not a readable safetensors file (weights file 'runs/lag_rope_seed0.safetensors': "},
        {"another scheme's", [&] { write_run_weights(weights, "lag", "none", 0); },
         "has weights beside it saved for another run (lag_rope_seed0.safetensors names lag none seed 0, not lag rope seed 0)"},
        {"another task's", [&] { write_run_weights(weights, "seen", "rope", 0); },
         "has weights beside it saved for another run (lag_rope_seed0.safetensors names seen rope seed 0, not lag rope seed 0)"},
        {"another seed's", [&] { write_run_weights(weights, "lag", "rope", 1); },
         "has weights beside it saved for another run (lag_rope_seed0.safetensors names lag rope seed 1, not lag rope seed 0)"},
        {"no metadata", [&] { wai::write_weights_file(weights, {{"w", wai::Tensor::zeros(wai::Shape{2})}}); },
         "has weights beside it saved for another run (lag_rope_seed0.safetensors names (no task) (no scheme), not lag rope seed 0)"},
    };
    for (const auto& c : cases) {
        INFO(c.name << " weights");
        finished(c.write_weights);
        const Outcome o = prune();
        INFO(o.out << o.err);
        CHECK(o.status == 0);
        CHECK(holds(o.out, "experiment: runs/lag_rope_seed0.txt " + c.reason));
        // Its weights go with it: train_position --save would refuse to replace garbage, and every rerun fail.
        CHECK(holds(o.out, "; it will be run again (its weights, lag_rope_seed0.safetensors, removed with it)\n"));
        CHECK_FALSE(fs::exists(result));
        CHECK_FALSE(fs::exists(weights));
        // The collector says the same, and writes nothing.
        finished(c.write_weights);
        const std::string chapter = source_dir + "/experiment/chapter_table.txt";
        const Outcome collected = run(folder, "collect_results", {"--run-flags", "", "runs", chapter, "t.txt", "s.md", "0"});
        check_one_line_refusal(collected, 1, "collect_results", "runs/lag_rope_seed0.txt " + c.reason);
        CHECK_FALSE(fs::exists(folder.path / "t.txt"));
    }
    // The run's own weights are kept, with nothing said; so are weights whose header is the run's, even
    // on a sparse file of 3 GiB under a 1 GB address-space limit: only the header is read.
    write_run_weights(weights, "lag", "rope", 0);
    const Outcome kept = prune();
    CHECK(kept.status == 0);
    CHECK_FALSE(holds(kept.out, "lag_rope_seed0"));
    CHECK(fs::exists(result));
    if (fs::path(build_dir).filename() == "build") {  // a sanitizer build maps terabytes of shadow memory at start-up
        const std::string header = R"({"w":{"dtype":"F32","shape":[805306368],"data_offsets":[0,3221225472]},)"
                                   R"("__metadata__":{"task":"lag","scheme":"rope","seed":"0"}})";
        std::string bytes(8, '\0');
        for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((uint64_t(header.size()) >> (8 * i)) & 0xff);
        write_bytes(weights, bytes + header);
        fs::resize_file(weights, 8 + header.size() + (uintmax_t(3) << 30));
        const Outcome huge = script(folder, "ulimit -v 1000000; exec timeout 60 " + program_path("collect_results") +
                                                " --prune --run-flags '' runs 0");
        INFO(huge.out << huge.err);
        CHECK(huge.status == 0);
        CHECK_FALSE(holds(huge.out, "lag_rope_seed0"));
        CHECK(fs::exists(weights));
    }
    // A folder where the weights of a run to redo belong is the user's: refused, nothing in it removed.
    write_bytes(result, "not a result\n");
    fs::remove(weights);
    fs::create_directories(weights);
    write_bytes(weights + "/notes.txt", "mine\n");
    check_one_line_refusal(prune(), 1, "collect_results",
                           "runs/lag_rope_seed0.safetensors is a folder where a file of the experiment belongs; move it away and run again");
    CHECK(read_bytes(weights + "/notes.txt") == "mine\n");
}

TEST_CASE("the extension's prune judges a trained model's weights beside its result, and removes them with it", "[cli]") {
    // Garbage in a model's weights (echo garbage > RESULTS/extension/trained/lag_rope_seed0.safetensors)
    // was kept, and every test of the model then failed its --load.
    Folder folder("prune_extension_weights");
    write_finished_extension(folder, "results");
    const std::string result = folder.file("results/extension/trained/lag_rope_seed0.txt");
    const std::string weights = folder.file("results/extension/trained/lag_rope_seed0.safetensors");
    const auto prune = [&] { return run(folder, "collect_extension", {"--prune", "--run-flags", "", "results", "32,64", "0"}); };
    const Outcome kept = prune();
    INFO(kept.out << kept.err);
    CHECK(kept.status == 0);
    CHECK(kept.out.empty());
    const std::string model_result = "experiment-extension: results/extension/trained/lag_rope_seed0.txt ";
    for (const auto& [name, write_weights, reason] : std::vector<std::tuple<std::string, std::function<void()>, std::string>>{
             {"garbage", [&] { write_bytes(weights, "garbage\n"); },
              "has weights beside it that are not a readable safetensors file (weights file "},
             {"another seed's", [&] { write_run_weights(weights, "lag", "rope", 1); },
              "has weights beside it saved for another run (lag_rope_seed0.safetensors names lag rope seed 1, not lag rope seed 0)"},
             {"none", [&] { fs::remove(weights); }, "has no weights beside it (lag_rope_seed0.safetensors)"}}) {
        INFO(name << " weights");
        write_finished_extension(folder, "results");
        write_weights();
        const Outcome o = prune();
        INFO(o.out << o.err);
        CHECK(o.status == 0);
        CHECK(holds(o.out, model_result + reason));
        CHECK_FALSE(fs::exists(result));
        CHECK_FALSE(fs::exists(weights));
        CHECK(fs::exists(folder.file("results/extension/trained/seen_rope_seed0.safetensors")));  // the others kept
    }
}

TEST_CASE("the prune leaves a live run's temporary files alone, removes a killed run's, and refuses a folder in a file's place", "[cli]") {
    Folder folder("prune_temporary");
    fs::create_directories(folder.path / "runs");
    // A live run holds a lock on its temporary result (experiment/atomic_run.sh): here the shell holds
    // it while the prune runs, as a run started from make experiment-jobs' list elsewhere would.
    const std::string live = folder.file("runs/lag_none_seed0.txt.tmp.AbC123");
    const std::string live_weights = folder.file("runs/lag_none_seed0.safetensors.tmp.DeF456");
    const std::string killed = folder.file("runs/lag_rope_seed0.txt.tmp.GhI789");
    const std::string killed_weights = folder.file("runs/lag_rope_seed0.safetensors.tmp.JkL012");
    for (const std::string& path : {live, live_weights, killed, killed_weights}) write_bytes(path, "");
    const Outcome o = script(folder, "{ flock -x 7 && " + program_path("collect_results") + " --prune runs 0; } 7>> " + quoted(live));
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    CHECK(o.status == 0);
    CHECK_THAT(o.out, ContainsSubstring("leaving runs/lag_none_seed0.txt.tmp.AbC123 alone: its run is still going"));
    CHECK_THAT(o.out, ContainsSubstring("leaving runs/lag_none_seed0.safetensors.tmp.DeF456 alone: its run is still going"));
    CHECK_THAT(o.out, ContainsSubstring("removing runs/lag_rope_seed0.txt.tmp.GhI789, left by a run that was killed"));
    CHECK(fs::exists(live));
    CHECK(fs::exists(live_weights));
    CHECK_FALSE(fs::exists(killed));
    CHECK_FALSE(fs::exists(killed_weights));
    // Once the run has ended its lock is gone, and what it left is a killed run's.
    const Outcome after = run(folder, "collect_results", {"--prune", "runs", "0"});
    CHECK(after.status == 0);
    CHECK_FALSE(fs::exists(live));
    CHECK_FALSE(fs::exists(live_weights));
    // A result grown past two short lines (here a sparse file of 3 GiB) is never read into memory.
    write_bytes(folder.file("runs/lag_alibi-0.5_seed0.txt"), "");
    fs::resize_file(folder.path / "runs/lag_alibi-0.5_seed0.txt", uintmax_t(3) << 30);
    const Outcome big = run(folder, "collect_results", {"--prune", "runs", "0"});
    CHECK(big.status == 0);
    CHECK_THAT(big.out, ContainsSubstring("runs/lag_alibi-0.5_seed0.txt is 3221225472 bytes, too large for a result (two short lines); "
                                          "it will be run again"));
    CHECK_FALSE(fs::exists(folder.path / "runs/lag_alibi-0.5_seed0.txt"));
    // The chapter's table is a regular file of a few lines: a device or a FIFO is refused, never read.
    check_one_line_refusal(run(folder, "collect_results", {"runs", "/dev/zero", "t.txt", "s.md", "0"}), 1, "collect_results",
                           "the chapter's table /dev/zero is not a regular file");
    // A folder where a result or a temporary file belongs is the user's: one line, nothing in it removed.
    for (const std::string name : {"runs/seen_none_seed0.txt", "runs/seen_rope_seed0.txt.tmp.MnO345"}) {
        INFO(name);
        fs::create_directories(folder.path / name);
        write_bytes(folder.file(name + "/notes.txt"), "mine\n");
        check_one_line_refusal(run(folder, "collect_results", {"--prune", "runs", "0"}), 1, "collect_results",
                               name + " is a folder where a file of the experiment belongs; move it away and run again");
        CHECK(read_bytes(folder.file(name + "/notes.txt")) == "mine\n");
        fs::remove_all(folder.path / name);
    }
}

TEST_CASE("the prune sets aside a result made with other RUN_FLAGS and puts it back when those flags come again", "[cli]") {
    // RUN_FLAGS that pass every check before a run yet make every run fail (--lr 1e30) lost every finished
    // result: the prune had deleted them first.
    Folder folder("prune_set_aside");
    fs::create_directories(folder.path / "runs");
    const std::string line = "lag  rope         seed 0: length 32 / 64 / 128: 1.000 / 1.000 / 1.000; at 128, positions past 32: "
                             "1.000; scores x log128/log32: 1.000";
    const std::string result = line + "\nsettings: train_position lag rope 0 --steps 5\n";
    write_bytes(folder.file("runs/lag_rope_seed0.txt"), result);
    // The run's weights (the prune reads their header: they must be the run's to be kept).
    write_run_weights(folder.file("runs/lag_rope_seed0.safetensors"), "lag", "rope", 0);
    const std::string weights = read_bytes(folder.file("runs/lag_rope_seed0.safetensors"));
    write_bytes(folder.file("runs/lag_none_seed0.txt"), "not a result\n");  // no valid result: deleted, not kept
    const Outcome typo = run(folder, "collect_results", {"--prune", "--run-flags", "--steps 5 --lr 1e30", "runs", "0"});
    INFO(typo.out << typo.err);
    CHECK(typo.status == 0);
    CHECK(holds(typo.out, "runs/lag_rope_seed0.txt was made with RUN_FLAGS '--steps 5', not '--steps 5 --lr 1e30'; it will be run "
                          "again (kept in runs/replaced/ until then, and put back if these flags come again)"));
    CHECK_FALSE(fs::exists(folder.path / "runs/lag_rope_seed0.txt"));
    CHECK(read_bytes(folder.file("runs/replaced/lag_rope_seed0.txt")) == result);
    CHECK(read_bytes(folder.file("runs/replaced/lag_rope_seed0.safetensors")) == weights);
    CHECK(holds(typo.out, "runs/lag_none_seed0.txt is not a valid result for its run; it will be run again\n"));
    CHECK_FALSE(fs::exists(folder.path / "runs/lag_none_seed0.txt"));
    CHECK_FALSE(fs::exists(folder.path / "runs/replaced/lag_none_seed0.txt"));
    // Those flags again: put back with its weights, not run again.
    const Outcome back = run(folder, "collect_results", {"--prune", "--run-flags", "--steps 5", "runs", "0"});
    INFO(back.out << back.err);
    CHECK(back.status == 0);
    CHECK(holds(back.out, "runs/lag_rope_seed0.txt put back from runs/replaced/: it was made with these RUN_FLAGS"));
    CHECK(read_bytes(folder.file("runs/lag_rope_seed0.txt")) == result);
    CHECK(read_bytes(folder.file("runs/lag_rope_seed0.safetensors")) == weights);
    CHECK_FALSE(fs::exists(folder.path / "runs/replaced/lag_rope_seed0.txt"));
    // Other flags again: set aside once more; flags that match neither leave the set-aside one where it is.
    CHECK(run(folder, "collect_results", {"--prune", "--run-flags", "--steps 7", "runs", "0"}).status == 0);
    const Outcome neither = run(folder, "collect_results", {"--prune", "--run-flags", "--steps 9", "runs", "0"});
    CHECK_FALSE(holds(neither.out, "put back"));
    CHECK(read_bytes(folder.file("runs/replaced/lag_rope_seed0.txt")) == result);
}

TEST_CASE("the prune refuses a file in place of its folder, and takes a folder not made yet as nothing to prune", "[cli]") {
    // Both collectors' prunes took a file, or a path below one, as RUNS_DIR or RESULTS and said nothing.
    Folder folder("prune_not_a_folder");
    write_bytes(folder.file("notes.txt"), "my notes\n");
    for (const std::string runs : {"notes.txt", "notes.txt/runs"})
        check_one_line_refusal(run(folder, "collect_results", {"--prune", runs, "0"}), 1, "collect_results",
                               "notes.txt is not a folder: the prune takes the folder the runs' results are in");
    check_one_line_refusal(run(folder, "collect_extension", {"--prune", "notes.txt", "32,64", "0"}), 1, "collect_extension",
                           "notes.txt is not a folder: the prune takes the folder the runs' results are in");
    CHECK(read_bytes(folder.file("notes.txt")) == "my notes\n");
    // A first make experiment: no results folder yet, nothing to prune, nothing said.
    for (const auto& outcome : {run(folder, "collect_results", {"--prune", "results/runs", "0"}),
                                run(folder, "collect_extension", {"--prune", "results", "32,64", "0"})}) {
        CHECK(outcome.status == 0);
        CHECK(outcome.out.empty());
        CHECK(outcome.err.empty());
    }
    CHECK_FALSE(fs::exists(folder.path / "results"));
}
