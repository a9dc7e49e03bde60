// The real programs of this build (train_position, collect_results, bench_step, the lessons), run
// as a user runs them: every kind of bad input is answered with one line on stderr and a non-zero
// exit code; a loss driven to NaN by a huge learning rate stops training with the step named, and a
// model whose outputs are NaN is not scored; the same run gives the same result line and the same
// weight bytes, alone or two at a time.
// Leaves out make's own targets and the experiment's interruption (tests/experiment_resume.sh).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tasks/weights_file.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

const std::string build_dir = WAI_BUILD_DIR;  // build/, or build/address/ ... for a sanitizer build
const std::string source_dir = WAI_SOURCE_DIR;

// A fresh folder for one test case, removed at its end; programs run inside it.
struct Folder {
    fs::path path;
    explicit Folder(const std::string& name)
        : path(fs::temp_directory_path() / ("whereami_cli_" + std::to_string(getpid()) + "_" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Folder() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string quoted(const std::string& text) {  // for sh: '...' with each ' written as '\''
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::vector<std::string> words(const std::string& line) {  // split on spaces; "<empty>" is ""
    std::vector<std::string> result;
    std::istringstream in(line);
    for (std::string word; in >> word;) result.push_back(word == "<empty>" ? "" : word);
    return result;
}

struct Outcome {
    int status = -1;  // the exit code, or 128 + the signal
    std::string out, err;
    long err_lines() const { return std::count(err.begin(), err.end(), '\n'); }
};

// The shell command that runs build_dir/program with args in `folder`, its output kept under `tag`.
std::string command_for(const Folder& folder, const std::string& program, const std::vector<std::string>& args,
                        const std::string& tag) {
    std::string command = quoted(build_dir + "/" + program);
    for (const std::string& arg : args) command += " " + quoted(arg);
    return command + " <" + quoted(folder.file(tag + ".in")) + " >" + quoted(folder.file(tag + ".out")) + " 2>" +
           quoted(folder.file(tag + ".err"));
}

int shell(const Folder& folder, const std::string& command) {
    const int raw = std::system(("cd " + quoted(folder.path.string()) + " && " + command).c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

Outcome collected(const Folder& folder, const std::string& tag, int status) {
    return {status, read_bytes(folder.file(tag + ".out")), read_bytes(folder.file(tag + ".err"))};
}

Outcome run(const Folder& folder, const std::string& program, const std::vector<std::string>& args,
            const std::string& input = "", const std::string& tag = "run") {
    write_bytes(folder.file(tag + ".in"), input);
    const int status = shell(folder, "exec " + command_for(folder, program, args, tag));
    return collected(folder, tag, status);
}

// Two runs started together, as make -j2 starts two experiment runs.
std::pair<Outcome, Outcome> run_two_at_once(const Folder& folder, const std::vector<std::string>& first,
                                            const std::vector<std::string>& second) {
    write_bytes(folder.file("a.in"), "");
    write_bytes(folder.file("b.in"), "");
    const int status = shell(folder, "( " + command_for(folder, "train_position", first, "a") + " & " +
                                         command_for(folder, "train_position", second, "b") + " & wait )");
    REQUIRE(status == 0);
    return {collected(folder, "a", 0), collected(folder, "b", 0)};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A model small enough that a run takes a fraction of a second, even under a sanitizer.
const std::vector<std::string> tiny = {"--steps", "3", "--dim", "8", "--mlp", "8", "--layers", "1", "--batch", "2",
                                       "--eval-seqs", "2", "--threads", "1"};

// TASK SCHEME SEED first, then the tiny sizes, then the rest of `line` (a later flag wins).
std::vector<std::string> with_tiny_sizes(const std::string& line) {
    std::vector<std::string> given = words(line), args;
    const size_t positional = std::min<size_t>(3, given.size());
    args.assign(given.begin(), given.begin() + positional);
    args = concat(args, tiny);
    args.insert(args.end(), given.begin() + positional, given.end());
    return args;
}

void check_one_line_refusal(const Outcome& o, int status, const std::string& program, const std::string& fragment) {
    INFO("stderr: " << o.err);
    CHECK(o.status == status);
    CHECK(o.out.empty());
    CHECK(o.err_lines() == 1);
    CHECK_THAT(o.err, StartsWith(program + ": "));
    CHECK_THAT(o.err, Contains(fragment));
}

}  // namespace

TEST_CASE("train_position: each bad argument is refused with one line and exit code 2", "[cli]") {
    Folder folder("bad_arguments");
    struct Case {
        const char* line;
        const char* message;
    };
    const Case cases[] = {
        {"foo none 0", "unknown task 'foo': the tasks are lag and seen"},
        {"<empty> none 0", "unknown task ''"},
        {"lag rope:abc 0", "bad position scheme 'rope:abc': 'abc' is not a number; valid forms: none, sinusoid"},
        {"lag alibi:-1 0", "bad position scheme 'alibi:-1': an ALiBi slope must be positive; valid forms"},
        {"lag pos 0", "unknown scheme 'pos'; valid forms"},
        {"lag rope: 0", "bad position scheme 'rope:'"},
        {"lag alibi:nan 0", "bad position scheme 'alibi:nan'"},
        {"lag none", "expected TASK SCHEME SEED, got 2 positional arguments"},
        {"lag none 0 7", "expected TASK SCHEME SEED, got 4 positional arguments"},
        {"lag none 0 --steps", "--steps needs a value"},
        {"lag none 0 --load", "--load needs a value"},
        {"lag none 0 --test-lens", "--test-lens needs a value"},
        {"lag none 0 --stpes 5", "unknown flag '--stpes'"},
        {"lag none 0 --steps 0", "--steps must be positive, got 0 (0 is allowed with --load"},
        {"lag none 0 --steps -5", "--steps must be positive, got -5"},
        {"lag none 0 --batch 0", "--batch must be positive, got 0"},
        {"lag none 0 --batch -1", "--batch must be positive, got -1"},
        {"lag none 0 --dim 0", "--dim must be positive, got 0"},
        {"lag none 0 --layers 0", "--layers must be positive, got 0"},
        {"lag none 0 --heads 0", "--heads must be positive, got 0"},
        {"lag none 0 --mlp -3", "--mlp must be positive, got -3"},
        {"lag none 0 --eval-seqs 0", "--eval-seqs must be positive, got 0"},
        {"lag none 0 --train-len 0", "--train-len must be positive, got 0"},
        {"lag none 0 --test-lens 0,64", "a test length must be positive, got 0"},
        {"lag none 0 --test-lens 32,-64", "a test length must be positive, got -64"},
        {"lag none 0 --lag 0", "--lag must be positive, got 0"},
        {"lag none 0 --vocab 0", "--vocab must be positive, got 0"},
        {"lag none 0 --threads 0", "--threads must be between 1 and 1024, got 0"},
        {"lag none 0 --kernels fused", "unknown kernels 'fused': the choices are plain (the chain of plain ops) and fast"},
        {"lag none 0 --kernels", "--kernels needs a value"},
        {"lag none 0 --lr 0", "--lr must be a positive number"},
        {"lag none 0 --lr -0.001", "--lr must be a positive number"},
        // Sizes far too large: refused before they overflow a product (--batch 2^62 was a segfault)
        // or fill the machine's memory.
        {"lag none 0 --dim 100000000", "--dim must be at most 4096, got 100000000"},
        {"lag none 0 --batch 4611686018427387904", "--batch must be at most 4096"},
        {"lag none 0 --train-len 1000000000", "--train-len must be at most 4096"},
        {"lag none 0 --layers 100000000000", "--layers must be at most 64"},
        {"lag none 0 --mlp 10000000000", "--mlp must be at most 16384"},
        {"lag none 0 --vocab 3000000000", "--vocab must be at most 65536"},
        {"lag none 0 --eval-seqs 1000000000000", "--eval-seqs must be at most 65536"},
        {"lag none 0 --test-lens 32,1000000000", "a test length must be at most 4096"},
        {"lag none 0 --threads 5000", "--threads must be between 1 and 1024, got 5000"},
        {"lag none 0 --steps abc", "--steps needs an integer, got 'abc'"},
        {"lag none 0 --steps 1e3", "--steps needs an integer, got '1e3'"},
        {"lag none 0 --steps 3.5", "--steps needs an integer, got '3.5'"},
        {"lag none 0 --steps <empty>", "--steps needs an integer, got ''"},
        {"lag none 0 --dim 0x40", "--dim needs an integer, got '0x40'"},
        {"lag none 0 --steps 99999999999999999999", "--steps needs an integer, got '99999999999999999999'"},
        {"lag none x", "SEED needs an integer, got 'x'"},
        {"lag none -1", "SEED must be a non-negative integer, got -1"},
        {"lag none 0 --lr abc", "--lr needs a number, got 'abc'"},
        {"lag none 0 --lr nan", "--lr needs a number, got 'nan'"},
        {"lag none 0 --lr inf", "--lr needs a number, got 'inf'"},
        {"lag none 0 --lr 1e300", "--lr 1e300 is past the largest float32"},
        {"lag none 0 --test-lens 32,,64", "--test-lens needs an integer, got ''"},
        {"lag none 0 --test-lens 32,64,", "--test-lens needs a list like 32,64,128, got '32,64,'"},
        {"lag none 0 --test-lens abc", "--test-lens needs an integer, got 'abc'"},
        {"lag learned 0 --test-lens 32,129", "test length 129 is past the learned table's 128 rows"},
        {"lag learned 0 --train-len 200 --test-lens 64", "--train-len 200 is past the learned table's 128 rows"},
        {"lag none 0 --dim 64 --heads 3", "--heads 3 does not divide --dim 64"},
        {"lag rope 0 --dim 6 --heads 2", "rope needs an even head dimension, got 3"},
        {"lag none 0 --lag 32", "--lag 32 must be smaller than --train-len 32"},
        {"lag none 0 --lag 40 --train-len 32", "--lag 40 must be smaller than --train-len 32"},
        {"lag none 0 --test-lens 3", "test length 3 must be longer than --lag 3"},
        {"seen none 0 --vocab 1", "--vocab must be at least 2 for seen"},
        {"lag none 0 --save /nonexistent/weights.safetensors", "the folder '/nonexistent' does not exist"},
    };
    for (const Case& c : cases) {
        INFO("train_position " << c.line);
        check_one_line_refusal(run(folder, "train_position", with_tiny_sizes(c.line)), 2, "train_position", c.message);
    }
    const Outcome help = run(folder, "train_position", {"--help"});
    CHECK(help.status == 0);
    CHECK_THAT(help.out, StartsWith("usage: train_position TASK SCHEME SEED"));
}

TEST_CASE("train_position: an unreadable or corrupt weight file is refused with one line and exit code 1", "[cli]") {
    Folder folder("bad_weights");
    const std::string saved = folder.file("rope.safetensors");
    const Outcome trained = run(folder, "train_position", concat(words("lag rope 0 --save " + saved), tiny));
    REQUIRE(trained.status == 0);
    const std::string good = read_bytes(saved);
    REQUIRE(good.size() > 100);

    std::string bad_json = good;
    bad_json[9] = '#';  // inside the JSON header, after its 8-byte length and the opening brace
    wai::WeightsFile not_finite = wai::read_weights_file(saved);
    wai::NamedTensors tensors;
    for (auto& [name, tensor] : not_finite.tensors) {
        if (name == "head.bias") tensor.data()[0] = std::numeric_limits<float>::quiet_NaN();
        tensors.emplace_back(name, tensor);
    }
    wai::write_weights_file(folder.file("nan.safetensors"), tensors, not_finite.metadata);
    write_bytes(folder.file("empty.safetensors"), "");
    write_bytes(folder.file("text.safetensors"), "not a weights file at all\n");
    write_bytes(folder.file("half.safetensors"), good.substr(0, good.size() / 2));
    write_bytes(folder.file("five_bytes.safetensors"), good.substr(0, 5));
    write_bytes(folder.file("bad_json.safetensors"), bad_json);

    struct Case {
        std::string file, flags, message;
    };
    const std::vector<Case> cases = {
        {"missing.safetensors", "", "cannot read it (No such file or directory)"},
        {".", "", "cannot read it (Is a directory)"},
        {"empty.safetensors", "", "it is 0 bytes, too short for a header length"},
        {"five_bytes.safetensors", "", "it is 5 bytes, too short for a header length"},
        {"text.safetensors", "", "the header length"},
        {"half.safetensors", "", "(a truncated file?)"},
        {"bad_json.safetensors", "", "the header is not valid JSON"},
        {"nan.safetensors", "", "tensor 'head.bias' holds NaN or infinity"},
        {"rope.safetensors", "--dim 16", "the model's is"},  // the sizes differ
        {source_dir + "/tests/fuzz/regressions/json_number_overflow.safetensors", "", "the header's JSON cannot be read"},
    };
    for (const Case& c : cases) {
        INFO("--load " << c.file << " " << c.flags);
        const auto args = concat(concat(words("lag rope 0"), tiny), concat({"--steps", "0", "--load", c.file}, words(c.flags)));
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "weights file '" + c.file + "': ");
        check_one_line_refusal(o, 1, "train_position", c.message);
    }
    // The right parameters, saved for another scheme: only the file's metadata can tell.
    const auto other_scheme = concat(concat(words("lag none 0"), tiny), {"--steps", "0", "--load", saved});
    check_one_line_refusal(run(folder, "train_position", other_scheme), 1, "train_position",
                           "saved as lag rope; this run is lag none");
    // And the good file still loads.
    CHECK(run(folder, "train_position", concat(concat(words("lag rope 0"), tiny), {"--steps", "0", "--load", saved})).status == 0);
}

TEST_CASE("train_position: a loss driven to NaN by a huge learning rate stops training, naming the step", "[cli]") {
    Folder folder("nan_loss");
    for (const char* run_line : {"lag none 0", "seen rope 1"}) {
        INFO(run_line);
        const std::string weights = folder.file("never_written.safetensors");
        const auto args = concat(concat(words(run_line), tiny), {"--steps", "50", "--lr", "1e30", "--save", weights});
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "(try a smaller --lr)");
        CHECK_THAT(o.err, Matches("train_position: training stopped at step [0-9]+: the loss is -?(nan|inf)[^\n]*\n"));
        CHECK_FALSE(fs::exists(weights));  // nothing is saved from a run that failed
        CHECK_FALSE(fs::exists(weights + ".tmp"));
    }
    // One step: its loss was finite, but the weights it left give NaN outputs. An argmax over NaN would
    // still print a plausible accuracy; the evaluation refuses instead, and no result line is printed.
    const auto one_step = concat(concat(words("lag none 0"), tiny), {"--steps", "1", "--lr", "1e30"});
    check_one_line_refusal(run(folder, "train_position", one_step), 1, "train_position",
                           "evaluation at length 32: the model's outputs hold NaN or infinity");
}

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
        CHECK_THAT(alone.out, Contains(" seed "));
        for (const Outcome* o : {&again, &first, &second}) CHECK(o->out == alone.out);
        const std::string bytes = read_bytes(folder.file("alone.safetensors"));
        CHECK(bytes.size() > 1000);
        for (const char* other : {"again.safetensors", "first.safetensors", "second.safetensors"})
            CHECK(read_bytes(folder.file(other)) == bytes);
    }
    // Not a vacuous comparison: another seed gives other weights.
    REQUIRE(run(folder, "train_position", concat(concat(words("lag rope 0"), tiny), {"--save", "s0"})).status == 0);
    REQUIRE(run(folder, "train_position", concat(concat(words("lag rope 1"), tiny), {"--save", "s1"})).status == 0);
    CHECK_FALSE(read_bytes(folder.file("s0")) == read_bytes(folder.file("s1")));
}

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
    check_one_line_refusal(run(folder, "collect_results", {"runs", source_dir + "/tasks/chapter_table.txt", "t", "s", "0"}),
                           1, "collect_results", "14 runs have no valid result");
    CHECK_FALSE(fs::exists(folder.path / "t"));  // no table from missing runs
}

TEST_CASE("bench_step: a bad flag is refused with one line and exit code 2, before any timing", "[cli]") {
    Folder folder("bench_step");
    const std::pair<const char*, const char*> cases[] = {
        {"--stesp 5", "unknown argument '--stesp'"},
        {"--steps", "--steps needs a value"},
        {"--steps 5x", "--steps needs a whole number from 1 to 100000, got '5x'"},
        {"--threads 0", "--threads needs a whole number from 1 to 100000, got '0'"},
        {"--repeats <empty>", "--repeats needs a whole number from 1 to 100000, got ''"},
        {"--kernels fused", "--kernels needs plain, fast or both, got 'fused'"},
    };
    for (const auto& [line, message] : cases) {
        INFO("bench_step " << line);
        check_one_line_refusal(run(folder, "bench_step", words(line)), 2, "bench_step", message);
    }
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
                           "unknown argument 'extra': this lesson takes --kernels plain|fast and --try");
    check_one_line_refusal(run(folder, "lessons/05_rope", {"--kernels", "fused"}), 2, build_dir + "/lessons/05_rope",
                           "unknown argument '--kernels' without plain or fast after it");
}

TEST_CASE("lesson 06 --try: each line it cannot use is answered with one line, and it goes on", "[cli]") {
    Folder folder("lesson06_try");
    // Six lines it does not understand, four positions or shifts out of range (one that would overflow
    // int64 if added first), then a good line, then q.
    const std::string input = "abc\n3\n3 x\n\n+\n3 103 7\n-5 3\n1000001 5\n+9223372036854775807\n-9223372036854775808\n"
                              "13 113\nq\n";
    const Outcome o = run(folder, "lessons/06_rope_exercise", {"--try"}, input);
    INFO(o.out << o.err);
    CHECK(o.status == 0);
    const auto count = [&](const std::string& text) {
        size_t n = 0;
        for (size_t at = o.out.find(text); at != std::string::npos; at = o.out.find(text, at + 1)) ++n;
        return n;
    };
    CHECK(count("  not understood: '") == 6);
    CHECK(count("  positions run from 0 to 1000000") == 2);
    CHECK(count("  a shift is at most 1000000 either way") == 2);
    CHECK_THAT(o.out, Contains("query at      13, key at     113 (distance    +100)"));
    CHECK_THAT(o.out, Contains("lesson 06: ok"));
}
