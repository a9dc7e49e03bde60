// collect_extension: turns make experiment-extension's result files into results/extension.md (seed
// means at every test length, for each scheme, and for each RoPE model with each context extension)
// and one data file per task for the pictures, results/extension/TASK.dat.
//   collect_extension [--run-flags FLAGS] RESULTS LENGTHS SEEDS...   collect and write; LENGTHS as
//                                        32,64,128,256,512; every run must have been made with FLAGS
//   collect_extension --prune [--run-flags FLAGS] RESULTS LENGTHS SEEDS...   delete result files that
//                                        are not a valid result for their run or were made with other
//                                        settings, and killed runs' temporary files
// The files (experiment/extension.mk makes them), with MODEL = TASK_SCHEME_seedN, ':' written as '-':
//   RESULTS/extension/trained/MODEL.txt    the model trained at 32, tested at LENGTHS with no extension
//                                          (learned only up to its 128 rows: the rest is "n/a", never 0);
//                                          its weights beside it, MODEL.safetensors, must be a safetensors
//                                          file whose header names that run, or the prune redoes it
//   RESULTS/extension/METHOD-L/MODEL.txt   a RoPE model's saved weights tested at length L with METHOD,
//                                          s = L / 32, the training length
// When RESULTS/runs/ holds make experiment's results, the retrained models' figures at 32, 64 and 128
// are compared with them. Outputs are written to temporary files and then renamed, all together (a
// failed write leaves every earlier output as it was); a file already at an output's path is replaced
// only when it is one collect_extension wrote (or empty).
// Leaves out running anything (experiment/extension.mk) and the pictures (plots/).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "positional/context_extension.hpp"
#include "tensor/number_text.hpp"
#include "tasks/evaluate.hpp"
#include "startup/openblas_startup.hpp"
#include "tasks/result_line.hpp"
#include "experiment/results_files.hpp"
#include "files/atomic_file.hpp"
#include "tasks/experiment.hpp"

using namespace wai;
namespace fs = std::filesystem;

namespace {

constexpr int64_t train_length = 32, learned_rows = 128;
const std::vector<std::string> tasks = {"lag", "seen"};
const std::vector<std::string> schemes = {"none",      "sinusoid",     "learned", "rope", "rope:1000000",
                                          "alibi:0.5", "alibi:0.0625", "t5"};
const std::vector<std::string> rope_schemes = {"rope", "rope:1000000"};
const std::vector<std::pair<std::string, ExtensionSpec::Kind>> methods = {
    {"pi", ExtensionSpec::Kind::pi}, {"ntk", ExtensionSpec::Kind::ntk}, {"yarn", ExtensionSpec::Kind::yarn}};
const std::vector<std::string> method_titles = {"PI", "NTK", "YaRN"};

// The first lines of the outputs: how collect_extension knows a file it wrote, which it may replace.
const char* const table_heading = "# Context extension: accuracy past the training length";
std::string data_heading(const std::string& task) {
    return "# " + task + ": accuracy at each test length, mean over seeds; n/a where a run cannot go. Written by collect_extension.";
}

struct Setup {
    std::string run_flags;  // make's RUN_FLAGS: every run must have been made with them
    fs::path results;
    std::vector<int64_t> lengths;
    std::vector<uint64_t> seeds;
};

// One expected result file: where it is and what its one line must say.
struct Expected {
    fs::path path;
    std::string task, scheme;  // scheme as the line names it, "rope+pi:4" for an extension
    uint64_t seed;
    std::vector<int64_t> lengths;
    std::string trained_scheme;  // the model's own scheme, "rope", as its settings line names it
};

Expected trained(const Setup& s, const std::string& task, const std::string& scheme, uint64_t seed) {
    std::vector<int64_t> lengths;
    for (int64_t L : s.lengths)
        if (scheme != "learned" || L <= learned_rows) lengths.push_back(L);
    return {run_file(s.results / "extension" / "trained", task, scheme, seed), task, scheme, seed, lengths, scheme};
}

Expected extended(const Setup& s, const std::string& task, const std::string& scheme, uint64_t seed, size_t method,
                  int64_t L) {
    const std::string folder = methods[method].first + "-" + std::to_string(L);
    const std::string name = extension_name(methods[method].second, static_cast<double>(L) / train_length);
    return {run_file(s.results / "extension" / folder, task, scheme, seed), task, scheme + "+" + name, seed, {L}, scheme};
}

std::vector<Expected> every_file(const Setup& s) {
    std::vector<Expected> files;
    for (const auto& task : tasks)
        for (const auto& scheme : schemes)
            for (uint64_t seed : s.seeds) {
                files.push_back(trained(s, task, scheme, seed));
                if (std::find(rope_schemes.begin(), rope_schemes.end(), scheme) == rope_schemes.end()) continue;
                for (size_t m = 0; m < methods.size(); ++m)
                    for (int64_t L : s.lengths) files.push_back(extended(s, task, scheme, seed, m, L));
            }
    return files;
}

// Why the file cannot be used as e made with run_flags, or "" when it can.
std::string fault(const Expected& e, const std::string& run_flags) {
    if (const std::string problem = result_file_problem(e.path); !problem.empty()) return problem;
    const auto f = read_run_file(e.path);
    if (!f) return "is not a valid result for its run";
    const ResultLine& r = f->result;
    if (r.task != e.task || r.scheme != e.scheme || r.seed != e.seed || r.lengths != e.lengths ||
        r.train_length != train_length)
        return "is not a valid result for its run";
    const std::string expected = settings_line(e.task, e.trained_scheme, e.seed, run_flags);
    if (f->settings != expected) return other_settings(f->settings, expected);
    // A trained model's weights lie beside its result, and every test of it loads them.
    if (e.scheme != e.trained_scheme) return "";
    fs::path weights = e.path;
    if (!fs::is_regular_file(weights.replace_extension(".safetensors")))
        return "has no weights beside it (" + weights.filename().string() + ")";
    return weights_fault(e.task, e.trained_scheme, e.seed, weights);
}

std::optional<ResultLine> read_expected(const Expected& e, const std::string& run_flags) {
    if (!fault(e, run_flags).empty()) return std::nullopt;
    return read_run_file(e.path)->result;
}

int prune(const Setup& s) {
    const std::vector<Expected> files = every_file(s);
    std::vector<fs::path> paths;
    for (const Expected& e : files) paths.push_back(e.path);
    prune_result_files(paths, [&](size_t i) { return fault(files[i], s.run_flags); }, s.results / "extension",
                       "experiment-extension");
    return 0;
}

// One row of the table: for each seed, the accuracy at each length, then at the longest length on
// the positions past 32 and with scores x log(L)/log(32); nullopt where the run cannot go.
using Figures = std::vector<std::optional<double>>;
struct Row {
    std::string model, method;
    std::vector<Figures> seeds;
};

struct Collection {
    std::vector<std::string> missing;
    std::vector<Row> rows;
};

Figures no_extension(const ResultLine& r, const std::vector<int64_t>& lengths) {
    Figures f;
    for (int64_t L : lengths) {
        const auto at = std::find(r.lengths.begin(), r.lengths.end(), L);
        f.push_back(at == r.lengths.end() ? std::nullopt : std::optional<double>(r.accuracy[at - r.lengths.begin()]));
    }
    const bool reaches_longest = r.lengths.back() == lengths.back();
    f.push_back(reaches_longest && r.has_past_train ? std::optional<double>(r.past_train) : std::nullopt);
    f.push_back(reaches_longest ? std::optional<double>(r.scaled) : std::nullopt);
    return f;
}

Collection collect_rows(const Setup& s, const std::string& task) {
    Collection c;
    auto read = [&](const Expected& e) {
        auto r = read_expected(e, s.run_flags);
        if (!r) c.missing.push_back(e.path.string() + " " + fault(e, s.run_flags));
        return r;
    };
    for (const auto& scheme : schemes) {
        Row plain{scheme, "none", {}};
        for (uint64_t seed : s.seeds)
            if (auto r = read(trained(s, task, scheme, seed))) plain.seeds.push_back(no_extension(*r, s.lengths));
        c.rows.push_back(plain);
        if (std::find(rope_schemes.begin(), rope_schemes.end(), scheme) == rope_schemes.end()) continue;
        for (size_t m = 0; m < methods.size(); ++m) {
            Row row{scheme, method_titles[m], {}};
            for (uint64_t seed : s.seeds) {
                Figures f;
                std::optional<double> past, scaled;  // at the longest length
                for (int64_t L : s.lengths) {
                    const auto r = read(extended(s, task, scheme, seed, m, L));
                    f.push_back(r ? std::optional<double>(r->accuracy[0]) : std::nullopt);
                    if (r && L == s.lengths.back()) {
                        if (r->has_past_train) past = r->past_train;
                        scaled = r->scaled;
                    }
                }
                f.push_back(past);
                f.push_back(scaled);
                row.seeds.push_back(f);
            }
            c.rows.push_back(row);
        }
    }
    return c;
}

std::string fixed(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", v);
    return text;
}

struct Summary {
    bool available = false;
    double mean = 0, low = 1, high = 0;
};

Summary summarise(const Row& row, size_t figure) {
    Summary s;
    for (const Figures& f : row.seeds)
        if (!f[figure]) return Summary{};  // one seed without it: the figure does not exist
    for (const Figures& f : row.seeds) {
        s.mean += *f[figure] / row.seeds.size();
        s.low = std::min(s.low, *f[figure]);
        s.high = std::max(s.high, *f[figure]);
    }
    s.available = !row.seeds.empty();
    return s;
}

// Always answering "no" on seen, over the same test sequences the runs used, at each length.
std::vector<double> always_no(const Setup& s) {
    const Task seen = make_task("seen");
    std::vector<double> share;
    for (int64_t L : s.lengths) {
        double total = 0;
        for (uint64_t seed : s.seeds) {
            const Batch batch = test_batch(seen, seed, L, 256);
            total += static_cast<double>(std::count(batch.targets.begin(), batch.targets.end(), 0)) / batch.targets.size();
        }
        share.push_back(total / s.seeds.size());
    }
    return share;
}

// make experiment's result lines, when present: do the retrained models repeat them at 32, 64, 128?
std::string compare_with_experiment(const Setup& s) {
    int same = 0, compared = 0;
    double largest = 0;
    for (const auto& task : tasks)
        for (const auto& scheme : schemes)
            for (uint64_t seed : s.seeds) {
                const auto main_run = read_expected({run_file(s.results / "runs", task, scheme, seed), task, scheme, seed,
                                                     {32, 64, 128}, scheme}, s.run_flags);
                const auto ours = read_expected(trained(s, task, scheme, seed), s.run_flags);
                if (!main_run || !ours || ours->lengths.size() < 3) continue;
                ++compared;
                double difference = 0;
                for (int i = 0; i < 3; ++i) difference = std::max(difference, std::abs(main_run->accuracy[i] - ours->accuracy[i]));
                same += difference == 0;
                largest = std::max(largest, difference);
            }
    if (compared == 0) return "No results of make experiment in " + (s.results / "runs").string() + " to compare with.\n";
    std::ostringstream text;
    text << "The models trained here are make experiment's, trained again to save their weights: at 32, 64 and 128 "
         << same << " of " << compared << " runs repeat " << (s.results / "runs").string() << " figure for figure"
         << (same == compared ? "." : " (the largest difference: " + fixed(largest) + ").") << "\n";
    return text.str();
}

int collect(const Setup& s) {
    // Every run's result first, then every output's path, and only then the work and the writes: a
    // missing result or an output that cannot be written leaves every file as it was.
    std::map<std::string, Collection> collected;
    std::vector<std::string> missing;
    for (const auto& task : tasks) {
        collected[task] = collect_rows(s, task);
        missing.insert(missing.end(), collected[task].missing.begin(), collected[task].missing.end());
    }
    if (!missing.empty()) {
        std::cerr << "collect_extension: " << missing.size() << (missing.size() == 1 ? " run has" : " runs have")
                  << " no valid result, e.g. " << missing.front() << "; run make experiment-extension again\n";
        return 1;
    }
    const fs::path table = s.results / "extension.md";
    std::map<std::string, fs::path> data_paths;
    for (const auto& task : tasks) data_paths[task] = s.results / "extension" / (task + ".dat");
    try {
        check_output_path(table.string(), "the extension's table");
        for (const auto& task : tasks) check_output_path(data_paths[task].string(), "the picture's data");
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // A file already there is replaced only when collect_extension wrote it (its heading first), or is
    // empty: RESULTS may be any folder, and RESULTS/extension.md someone's own notes.
    refuse_foreign_output(table, "the extension's table", "collect_extension", not_headed_by(table, table_heading));
    for (const auto& task : tasks)
        refuse_foreign_output(data_paths[task], "the picture's data", "collect_extension",
                              not_headed_by(data_paths[task], data_heading(task)));
    std::map<std::string, std::string> data_text;
    std::ostringstream md;
    md << table_heading << "\n\n"
       << (s.run_flags.empty()
               ? "Every model is the experiment's (D = 64, 2 layers, 1 head, 2000 steps at length " +
                     std::to_string(train_length) + ")"
               : "Every model is train_position TASK SCHEME SEED " + s.run_flags +
                     " (RUN_FLAGS: not the experiment's D = 64, 2 layers, 1 head, 2000 steps at length " +
                     std::to_string(train_length) + ")")
       << ", trained once with its weights saved. Each RoPE model is then tested again with position "
          "interpolation (PI), NTK-aware scaling and YaRN, at each length L with s = L / "
       << train_length << " (so s = 1 at 32, where every method is RoPE itself). Seeds: ";
    for (uint64_t seed : s.seeds) md << seed << " ";
    md << "\n\nEach cell: the mean over the seeds (min..max). n/a: the run cannot go there (the learned table has "
       << learned_rows << " rows).\n\n";
    const std::vector<double> baseline = always_no(s);
    for (const auto& task : tasks) {
        const Collection& c = collected[task];
        const std::string longest = std::to_string(s.lengths.back()), train = std::to_string(train_length);
        md << "## " << task << "\n\n| scheme | extension | ";
        for (int64_t L : s.lengths) md << L << " | ";
        md << longest << ", past " << train << " | " << longest << ", scores x log" << longest << "/log" << train
           << " |\n|---|---|";
        for (size_t i = 0; i < s.lengths.size() + 2; ++i) md << "---|";
        md << "\n";
        std::ostringstream data;
        data << data_heading(task) << "\nlength";
        for (const Row& row : c.rows) data << " " << row.model << (row.method == "none" ? "" : "+" + row.method);
        data << (task == "seen" ? " always-no" : " chance") << "\n";
        for (const Row& row : c.rows) {
            md << "| " << row.model << " | " << (row.method == "none" ? "none" : row.method) << " | ";
            for (size_t f = 0; f < s.lengths.size() + 2; ++f) {
                const Summary v = summarise(row, f);
                md << (v.available ? fixed(v.mean) + " (" + fixed(v.low) + ".." + fixed(v.high) + ")" : "n/a") << " | ";
            }
            md << "\n";
        }
        if (task == "seen") {
            md << "| always \"no\" | | ";
            for (double b : baseline) md << fixed(b) << " | ";
            md << " | |\n";
        }
        md << "\n";
        for (size_t i = 0; i < s.lengths.size(); ++i) {
            data << s.lengths[i];
            for (const Row& row : c.rows) {
                const Summary v = summarise(row, i);
                data << " " << (v.available ? fixed(v.mean) : "n/a");
            }
            data << " " << (task == "seen" ? fixed(baseline[i]) : fixed(1.0 / 16.0)) << "\n";
        }
        data_text[task] = data.str();
    }
    md << compare_with_experiment(s);
    // As one output: a failure (a full disk) leaves every file as it was, never new data beside an old table.
    const std::string markdown = md.str();
    std::vector<std::pair<std::string, std::string_view>> outputs;
    for (const auto& task : tasks) outputs.emplace_back(data_paths[task].string(), data_text[task]);
    outputs.emplace_back(table.string(), markdown);
    write_files_atomically(outputs);
    std::cout << "experiment-extension: wrote " << table.string() << " and " << (s.results / "extension").string()
              << "/{lag,seen}.dat\n";
    return 0;
}

// "32,64,128": increasing whole numbers, the first the training length.
std::vector<int64_t> parse_lengths(const std::string& text) {
    std::vector<int64_t> lengths;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("LENGTHS must be whole numbers separated by commas, got '" + text + "'");
        if (item.size() > 1 && item[0] == '0')  // its runs' folders are named by the number: pi-064 beside pi-64
            throw UsageError("LENGTHS are written without leading zeros, got '" + text + "'");
        lengths.push_back(item.size() > 6 ? max_size + 1 : parse_integer(item, "LENGTHS"));  // past any int64 too
        if (lengths.back() > max_size)  // train_position's largest test length
            throw UsageError("LENGTHS must be at most " + std::to_string(max_size) + " (train_position's largest test length), got '" + text + "'");
        if (lengths.size() > 1 && lengths.back() <= lengths[lengths.size() - 2])
            throw UsageError("LENGTHS must increase, got '" + text + "'");
    }
    if (!text.empty() && text.back() == ',')
        throw UsageError("LENGTHS must be whole numbers separated by commas, got '" + text + "'");
    if (lengths.empty() || lengths.front() != train_length)
        throw UsageError("LENGTHS must start at the training length " + std::to_string(train_length) + ", got '" + text + "'");
    return lengths;
}

}  // namespace

int main(int argc, char** argv) {
    prepare_process(argv);
    return run_collector("collect_extension", [&] {
        const std::string usage = "usage: collect_extension [--prune] [--run-flags FLAGS] RESULTS LENGTHS SEED...  (LENGTHS as "
                                  "32,64,128,256,512)";
        const CollectorCommandLine line = parse_collector_command_line(argc, argv);
        if (line.help) {
            std::cout << usage << "\nmake experiment-extension runs it (the prune before the runs, the collection after them).\n";
            return 0;
        }
        const std::vector<std::string>& args = line.positional;
        if (!line.my_schemes.empty())
            throw UsageError("--my-schemes is make experiment's (collect_results); the extension tests the chapter's schemes");
        if (args.size() < 3) throw UsageError(usage);
        const Setup setup{line.run_flags, args[0], parse_lengths(args[1]), parse_seed_arguments(args, 2)};
        return line.prune ? prune(setup) : collect(setup);
    });
}
