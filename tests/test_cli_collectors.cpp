// The collectors' command lines and outputs (collect_results, collect_extension): a bad argument
// refused with one line; make's RUN_FLAGS taken, empty or holding flags of their own; every output
// checked before any is written, all written as one (a failed write leaves every one as it was), and
// only an output they wrote (or an empty file) replaced; a result line whose figures cannot be true is
// not a valid result.
// Leaves out the prune (tests/test_cli_prune.cpp) and make's settings (tests/experiment_resume.sh).
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
#include "tests/programs.hpp"
#include "tests/results_fixtures.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

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
    // --help alone: the usage on stdout, exit 0 (it was "unknown flag '--help'", exit 2); with anything else, refused.
    for (const std::string program : {"collect_results", "collect_extension"})
        for (const std::string help : {"--help", "-h"}) {
            INFO(program << " " << help);
            const Outcome o = run(folder, program, {help});
            CHECK(o.status == 0);
            CHECK_THAT(o.out, StartsWith("usage: " + program));
            CHECK(o.err.empty());
            check_one_line_refusal(run(folder, program, {"--prune", "runs", help}), 2, program,
                                   help + " stands alone, got it with other arguments");
        }
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

TEST_CASE("the collectors' outputs are one: a write that fails leaves every output as it was", "[cli]") {
    // Under a file-size limit the summary passes and the rest do not, collect_results left a new table
    // and new pictures' data beside the old summary, and said only that the summary failed.
    Folder folder("collector_outputs_as_one");
    write_finished_experiment(folder);
    const std::string collect = "exec '" + program_path("collect_results") + "' --run-flags '' runs '" + source_dir +
                                "/experiment/chapter_table.txt' t.txt s.md 0";
    REQUIRE(script(folder, collect).status == 0);
    const std::vector<std::string> outputs = {"t.txt", "s.md", "data/lag.dat", "data/seen.dat"};
    std::vector<std::string> before;
    size_t largest_but_summary = 0;
    for (const std::string& output : outputs) {
        before.push_back(read_bytes(folder.file(output)));
        if (output != "s.md") largest_but_summary = std::max(largest_but_summary, before.back().size());
    }
    // One lag run's figure changed: the table, the summary and the lag data would change.
    const std::string run_file = folder.file("runs/" + wai::run_name("lag", "rope", 0) + ".txt");
    std::string text = read_bytes(run_file);
    text.replace(text.find("1.000"), 5, "0.500");
    write_bytes(run_file, text);
    const size_t blocks = largest_but_summary / 512 + 1;  // ulimit -f counts 512-byte blocks
    REQUIRE(before[1].size() > 512 * blocks + 512);         // the summary (and its change) passes the limit
    const Outcome limited = script(folder, "ulimit -f " + std::to_string(blocks) + "; " + collect);
    check_one_line_refusal(limited, 1, "collect_results", "cannot write s.md: writing it failed (File too large)");
    for (size_t i = 0; i < outputs.size(); ++i) {
        INFO(outputs[i]);
        CHECK(read_bytes(folder.file(outputs[i])) == before[i]);
    }
    for (const auto& entry : fs::recursive_directory_iterator(folder.path))
        CHECK_FALSE(holds(entry.path().filename().string(), ".tmp."));
    // Without the limit, every output is the new one (the seen task's data has no lag run in it).
    REQUIRE(script(folder, collect).status == 0);
    for (size_t i = 0; i < 3; ++i) {
        INFO(outputs[i]);
        CHECK(read_bytes(folder.file(outputs[i])) != before[i]);
    }
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
