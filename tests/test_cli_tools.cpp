// The other programs' command lines: the collectors (collect_results, collect_extension), bench_step
// and the lessons refuse a bad, repeated or empty argument and a signed number with one line and exit
// code 2; lesson 06 --try answers each line it cannot use and goes on; the collectors take make's
// RUN_FLAGS, empty or holding flags of their own, check every output before writing any, and replace
// only an output they wrote (or an empty file); the prune redoes a run whose weights are not a
// safetensors file of that run, removing them with it.
// Leaves out train_position's arguments (tests/test_cli_arguments.cpp) and make's settings
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

#include "experiment/results_files.hpp"
#include "experiment/summary.hpp"
#include "files/weights_file.hpp"
#include "positional/context_extension.hpp"
#include "tasks/result_line.hpp"
#include "tests/programs.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

// A result line as train_position prints it for a run trained at 32 and tested at `lengths`, every
// accuracy 1.000 (with `extension`, as a test of a RoPE model's weights with it: "pi:2").
std::string result_line(const std::string& task, const std::string& scheme, uint64_t seed, const std::vector<int64_t>& lengths,
                        const std::string& extension = "") {
    wai::RunConfig config;
    config.task = task, config.scheme = scheme, config.seed = seed, config.test_lengths = lengths;
    wai::RunResult result;
    result.accuracy.assign(lengths.size(), 1.0);
    result.has_past_train = lengths.back() > config.train_length;
    result.past_train_accuracy = result.scaled_accuracy = 1.0;
    result.extension = extension;
    return wai::format_result_line(config, result);
}

// Weights as train_position --save leaves them: a safetensors file whose metadata names the run (one
// small tensor: what the collectors read of a run's weights is the header).
void write_run_weights(const std::string& path, const std::string& task, const std::string& scheme, uint64_t seed) {
    wai::write_weights_file(path, {{"w", wai::Tensor::zeros(wai::Shape{2})}},
                            {{"task", task}, {"scheme", scheme}, {"seed", std::to_string(seed)}, {"made_by", "whereami train_position"}});
}

// Every run of make experiment for seed 0 finished with RUN_FLAGS '', in folder/runs: result, settings, weights.
void write_finished_experiment(const Folder& folder) {
    fs::create_directories(folder.path / "runs");
    for (const auto& task : wai::experiment_tasks)
        for (const auto& scheme : wai::experiment_schemes) {
            const std::string name = folder.file("runs/" + wai::run_name(task, scheme, 0));
            write_bytes(name + ".txt", result_line(task, scheme, 0, {32, 64, 128}) + "\nsettings: train_position " + task + " " +
                                           scheme + " 0\n");
            write_run_weights(name + ".safetensors", task, scheme, 0);
        }
}

// Every result make experiment-extension leaves in folder/RESULTS for EXTENSION_LENGTHS='32 64' and seed 0.
void write_finished_extension(const Folder& folder, const std::string& results) {
    const std::vector<std::string> schemes = {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625", "t5"};
    const std::pair<std::string, wai::ExtensionSpec::Kind> methods[] = {
        {"pi", wai::ExtensionSpec::Kind::pi}, {"ntk", wai::ExtensionSpec::Kind::ntk}, {"yarn", wai::ExtensionSpec::Kind::yarn}};
    for (const std::string task : {"lag", "seen"})
        for (const auto& scheme : schemes) {
            const std::string settings = "settings: train_position " + task + " " + scheme + " 0\n";
            fs::create_directories(folder.path / results / "extension/trained");
            write_bytes(folder.file(results + "/extension/trained/" + wai::run_name(task, scheme, 0) + ".txt"),
                        result_line(task, scheme, 0, {32, 64}) + "\n" + settings);
            if (scheme.rfind("rope", 0) != 0) continue;
            for (const auto& [method, kind] : methods)
                for (const int64_t length : {32, 64}) {
                    const std::string folder_name = results + "/extension/" + method + "-" + std::to_string(length);
                    fs::create_directories(folder.path / folder_name);
                    write_bytes(folder.file(folder_name + "/" + wai::run_name(task, scheme, 0) + ".txt"),
                                result_line(task, scheme, 0, {length}, wai::extension_name(kind, length / 32.0)) + "\n" + settings);
                }
        }
}

}  // namespace

TEST_CASE("collect_results: bad arguments are refused with one line", "[cli]") {
    Folder folder("collect_results");
    fs::create_directories(folder.path / "runs");
    const Outcome usage = run(folder, "collect_results", {});
    CHECK(usage.status == 2);
    CHECK(usage.err_lines() == 1);
    CHECK_THAT(usage.err, StartsWith("usage: collect_results"));
    check_one_line_refusal(run(folder, "collect_results", {"--prune", "runs", "x"}), 2, "collect_results",
                           "a SEED must be a non-negative integer below 10^18, got 'x'");
    check_one_line_refusal(run(folder, "collect_results", {"--prune", "runs", "-1"}), 2, "collect_results", "got '-1'");
    check_one_line_refusal(run(folder, "collect_results", {"--prune", "runs", "0", "0"}), 2, "collect_results",
                           "seed 0 is given twice");
    check_one_line_refusal(run(folder, "collect_results", {"runs", "/nonexistent/table.txt", "t", "s", "0"}), 1,
                           "collect_results", "cannot read the chapter's table /nonexistent/table.txt");
    check_one_line_refusal(run(folder, "collect_results", {"runs", source_dir + "/experiment/chapter_table.txt", "t", "s", "0"}),
                           1, "collect_results", "14 runs have no valid result");
    CHECK_FALSE(fs::exists(folder.path / "t"));  // no table from missing runs
}

TEST_CASE("the collectors check every output before writing any: never an input, never above a missing folder", "[cli]") {
    Folder folder("collector_outputs");
    fs::create_directories(folder.path / "runs");
    const std::string chapter = source_dir + "/experiment/chapter_table.txt";
    const std::string input = folder.file("runs/lag_rope_seed0.txt");
    write_bytes(input, "not a result\n");
    auto collect = [&](const std::string& table, const std::string& summary) {
        return run(folder, "collect_results", {"runs", chapter, table, summary, "0"});
    };
    // An output that is an input, or another output under another spelling of its path.
    check_one_line_refusal(collect("runs/lag_rope_seed0.txt", "s.md"), 2, "collect_results", "are the same file");
    CHECK(read_bytes(input) == "not a result\n");
    check_one_line_refusal(collect("t.txt", "runs/lag_rope_seed0.safetensors"), 2, "collect_results",
                           "SUMMARY and a run's weights are the same file");
    check_one_line_refusal(collect("t.txt", "./t.txt"), 2, "collect_results", "TABLE and SUMMARY are the same file");
    check_one_line_refusal(collect("t.txt", chapter), 2, "collect_results", "SUMMARY and CHAPTER_TABLE are the same file");
    // A folder that is not there is not made; an output that is a folder is refused before any other is written.
    check_one_line_refusal(collect(folder.file("absent/t.txt"), "s.md"), 2, "collect_results", "does not exist");
    CHECK_FALSE(fs::exists(folder.path / "absent"));
    fs::create_directories(folder.path / "table_folder");
    check_one_line_refusal(collect("table_folder", "s.md"), 2, "collect_results", "it exists and is a folder");
    fs::create_directories(folder.path / "summary_folder");
    check_one_line_refusal(collect("t.txt", "summary_folder"), 2, "collect_results", "it exists and is a folder");
    CHECK_FALSE(fs::exists(folder.path / "data"));
    CHECK_FALSE(fs::exists(folder.path / "t.txt"));
    // A missing result is said to be missing; a FIFO in a result's place is never opened (it would hang).
    fs::remove(input);
    check_one_line_refusal(collect("t.txt", "s.md"), 1, "collect_results", "runs/lag_none_seed0.txt is missing");
    REQUIRE(mkfifo(input.c_str(), 0600) == 0);
    const Outcome fifo = script(folder, "timeout 60 " + program_path("collect_results") + " --prune runs 0");
    CHECK(fifo.status == 0);
    CHECK_THAT(fifo.out, ContainsSubstring("runs/lag_rope_seed0.txt is not a regular file; it will be run again"));
    CHECK_FALSE(fs::exists(input));
    CHECK_FALSE(fs::exists(folder.path / "data"));
    // Seeds are written as make names the runs' files: seed00 would never be found as seed 0.
    check_one_line_refusal(run(folder, "collect_results", {"--prune", "runs", "00"}), 2, "collect_results",
                           "a SEED is written without leading zeros, got '00'");
    // The extension's collector: lengths train_position can test, and no table from missing runs.
    fs::create_directories(folder.path / "results/extension");
    check_one_line_refusal(run(folder, "collect_extension", {"--prune", "results", "32,6400", "0"}), 2, "collect_extension",
                           "LENGTHS must be at most 4096 (train_position's largest test length), got '32,6400'");
    check_one_line_refusal(run(folder, "collect_extension", {"--prune", "results", "32,999999999", "0"}), 2, "collect_extension",
                           "LENGTHS must be at most 4096 (train_position's largest test length), got '32,999999999'");
    check_one_line_refusal(run(folder, "collect_extension", {"results", "32,64,", "0"}), 2, "collect_extension",
                           "LENGTHS must be whole numbers separated by commas, got '32,64,'");
    check_one_line_refusal(run(folder, "collect_extension", {"--prune", "results", "32,064", "0"}), 2, "collect_extension",
                           "LENGTHS are written without leading zeros, got '32,064'");
    check_one_line_refusal(run(folder, "collect_extension", {"results", "32,64", "0"}), 1, "collect_extension",
                           "runs have no valid result, e.g. ");
    CHECK(fs::is_empty(folder.path / "results/extension"));
    CHECK_FALSE(fs::exists(folder.path / "results/extension.md"));
}

TEST_CASE("the collectors replace only an output they wrote: any other file is refused in one line and kept as it was", "[cli]") {
    // collect_results with a source file for TABLE and the README for SUMMARY replaced both and exited 0.
    Folder folder("collector_foreign_outputs");
    write_finished_experiment(folder);
    const std::string chapter = source_dir + "/experiment/chapter_table.txt";
    const std::string source = read_bytes(source_dir + "/programs/contain.cpp"), readme = read_bytes(source_dir + "/lessons/README.md");
    write_bytes(folder.file("contain.cpp"), source);
    write_bytes(folder.file("README.md"), readme);
    const auto collect = [&](const std::string& table, const std::string& summary) {
        return run(folder, "collect_results", {"--run-flags", "", "runs", chapter, table, summary, "0"});
    };
    check_one_line_refusal(collect("contain.cpp", "README.md"), 2, "collect_results",
                           "TABLE contain.cpp: a file is there that collect_results did not write (its line 1 is not a result line: '//");
    check_one_line_refusal(collect("t.txt", "README.md"), 2, "collect_results",
                           "SUMMARY README.md: a file is there that collect_results did not write (its first line is '# ");
    CHECK(holds(collect("t.txt", "README.md").err, "collect_results replaces only a file it wrote there, or an empty one, so nothing "
                                                   "was written: give another path, or move that file away first"));
    // A table that is result lines but one: not a table collect_results wrote either.
    const std::string almost = result_line("lag", "none", 0, {32, 64, 128}) + "\nmy note\n";
    write_bytes(folder.file("almost.txt"), almost);
    check_one_line_refusal(collect("almost.txt", "s.md"), 2, "collect_results", "its line 2 is not a result line: 'my note'");
    CHECK(read_bytes(folder.file("contain.cpp")) == source);
    CHECK(read_bytes(folder.file("README.md")) == readme);
    CHECK(read_bytes(folder.file("almost.txt")) == almost);
    CHECK_FALSE(fs::exists(folder.path / "t.txt"));
    CHECK_FALSE(fs::exists(folder.path / "s.md"));
    CHECK_FALSE(fs::exists(folder.path / "data"));
    // The picture's data beside TABLE: a file of someone else's there is refused too, before TABLE is written.
    fs::create_directories(folder.path / "data");
    write_bytes(folder.file("data/seen.dat"), "1 2 3\n");
    check_one_line_refusal(collect("t.txt", "s.md"), 2, "collect_results",
                           "the picture's data data/seen.dat: a file is there that collect_results did not write (its first line is '1 2 3'");
    CHECK(read_bytes(folder.file("data/seen.dat")) == "1 2 3\n");
    CHECK_FALSE(fs::exists(folder.path / "t.txt"));
    CHECK_FALSE(fs::exists(folder.path / "data/lag.dat"));
    // An empty file holds nothing to lose: replaced. Then its own outputs, again and again (make experiment rerun).
    write_bytes(folder.file("data/seen.dat"), "");
    write_bytes(folder.file("t.txt"), "");
    for (int time = 1; time <= 2; ++time) {
        INFO("collect number " << time);
        const Outcome o = collect("t.txt", "s.md");
        INFO(o.out << o.err);
        CHECK(o.status == 0);
        CHECK(read_bytes(folder.file("t.txt")).rfind(result_line("lag", "none", 0, {32, 64, 128}) + "\n", 0) == 0);
        CHECK(read_bytes(folder.file("s.md")).rfind(std::string(wai::summary_heading) + "\n", 0) == 0);
        CHECK(read_bytes(folder.file("data/seen.dat")).rfind(wai::picture_data_heading("seen") + "\n", 0) == 0);
    }

    // collect_extension: RESULTS/extension.md and RESULTS/extension/TASK.dat, in whatever folder RESULTS is.
    write_finished_extension(folder, "results");
    const std::string notes = "# My notes on context extension\n\nYaRN first.\n";
    write_bytes(folder.file("results/extension.md"), notes);
    check_one_line_refusal(run(folder, "collect_extension", {"results", "32,64", "0"}), 2, "collect_extension",
                           "the extension's table results/extension.md: a file is there that collect_extension did not write (its first "
                           "line is '# My notes on context extension', not '# Context extension: accuracy past the training length')");
    CHECK(read_bytes(folder.file("results/extension.md")) == notes);
    CHECK_FALSE(fs::exists(folder.path / "results/extension/lag.dat"));
    fs::rename(folder.path / "results/extension.md", folder.path / "notes.md");
    write_bytes(folder.file("results/extension/lag.dat"), notes);
    check_one_line_refusal(run(folder, "collect_extension", {"results", "32,64", "0"}), 2, "collect_extension",
                           "the picture's data results/extension/lag.dat: a file is there that collect_extension did not write");
    CHECK(read_bytes(folder.file("results/extension/lag.dat")) == notes);
    CHECK_FALSE(fs::exists(folder.path / "results/extension.md"));
    fs::remove(folder.path / "results/extension/lag.dat");
    for (int time = 1; time <= 2; ++time) {
        INFO("collect_extension number " << time);
        const Outcome o = run(folder, "collect_extension", {"results", "32,64", "0"});
        INFO(o.out << o.err);
        CHECK(o.status == 0);
        CHECK(read_bytes(folder.file("results/extension.md")).rfind("# Context extension: accuracy past the training length\n", 0) == 0);
        CHECK(holds(read_bytes(folder.file("results/extension/lag.dat")), "Written by collect_extension."));
    }
}

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

TEST_CASE("bench_step: a bad flag is refused with one line and exit code 2, before any timing", "[cli]") {
    Folder folder("bench_step");
    const std::pair<const char*, const char*> cases[] = {
        {"--stesp 5", "unknown argument '--stesp'"},
        {"--steps", "--steps needs a value"},
        {"--steps 5x", "--steps needs a whole number from 1 to 100000, got '5x'"},
        {"--threads 0", "--threads must be a whole number from 1 to "},
        {"--repeats <empty>", "--repeats needs a value, got an empty one"},
        {"--kernels fused", "--kernels needs plain, fast or both, got 'fused'"},
        {"--scaling 1", "--scaling needs a thread count from 2 to 64, got 1"},
        {"--scaling 65", "--scaling needs a thread count from 2 to 64, got 65"},
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

TEST_CASE("collect_results: a result line whose figures cannot be true is not a valid result", "[cli]") {
    Folder folder("impossible_result");
    fs::create_directories(folder.path / "runs");
    // At 128 over every position 0.100, and past 32 (96 of those positions) 0.900: impossible, since the
    // positions past 32 alone would give at least 0.675 over the whole length; and the other way round.
    const std::pair<std::string, std::string> lines[] = {
        {"lag_none_seed0", "lag  none         seed 0: length 32 / 64 / 128: 0.500 / 0.300 / 0.100; at 128, positions past 32: 0.900; "
                           "scores x log128/log32: 0.100"},
        {"lag_rope_seed0", "lag  rope         seed 0: length 32 / 64 / 128: 0.500 / 0.900 / 0.990; at 128, positions past 32: 0.100; "
                           "scores x log128/log32: 0.100"},
    };
    for (const auto& [name, line] : lines) {
        const std::string scheme = name.substr(4, name.find("_seed") - 4);
        write_bytes(folder.file("runs/" + name + ".txt"), line + "\nsettings: train_position lag " + scheme + " 0\n");
        write_bytes(folder.file("runs/" + name + ".safetensors"), "weights");
    }
    const Outcome o = run(folder, "collect_results", {"--prune", "--run-flags", "", "runs", "0"});
    INFO(o.out << o.err);
    CHECK(o.status == 0);
    for (const auto& [name, line] : lines) {
        CHECK(o.out.find("runs/" + name + ".txt is not a valid result for its run; it will be run again") != std::string::npos);
        CHECK_FALSE(fs::exists(folder.path / "runs" / (name + ".txt")));
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
