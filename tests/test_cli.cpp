// The real programs of this build (train_position, collect_results, bench_step, the lessons), run
// as a user runs them: every kind of bad input is answered with one line on stderr and a non-zero
// exit code; a loss driven to NaN by a huge learning rate stops training with the step named, and a
// model whose outputs are NaN is not scored; the same run gives the same result line and the same
// weight bytes, alone or two at a time.
// Leaves out make's own targets and the experiment's interruption (tests/experiment_resume.sh).
#include <catch2/catch.hpp>

#include <sys/stat.h>
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

// TASK SCHEME SEED first, then the tiny sizes the rest of `line` does not give (a flag is taken
// once), then the rest of `line`.
std::vector<std::string> with_tiny_sizes(const std::string& line) {
    std::vector<std::string> given = words(line), args;
    const size_t positional = std::min<size_t>(3, given.size());
    args.assign(given.begin(), given.begin() + positional);
    for (size_t i = 0; i + 1 < tiny.size(); i += 2)
        if (std::find(given.begin() + positional, given.end(), tiny[i]) == given.end()) args = concat(args, {tiny[i], tiny[i + 1]});
    args.insert(args.end(), given.begin() + positional, given.end());
    return args;
}

// `start` (TASK SCHEME SEED), the tiny sizes `extra` does not give, then `extra`: each flag once.
std::vector<std::string> tiny_with(const std::vector<std::string>& extra, const std::string& start = "lag none 0") {
    std::vector<std::string> args = words(start);
    for (size_t i = 0; i + 1 < tiny.size(); i += 2)
        if (std::find(extra.begin(), extra.end(), tiny[i]) == extra.end()) args = concat(args, {tiny[i], tiny[i + 1]});
    return concat(args, extra);
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
        {"lag none 0 --threads 0", "--threads must be a whole number from 1 to "},
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
        {"lag none 0 --threads 5000", "CPUs this process may run on), got '5000'"},
        {"lag none 0 --steps abc", "--steps needs an integer, got 'abc'"},
        {"lag none 0 --steps 1e3", "--steps needs an integer, got '1e3'"},
        {"lag none 0 --steps 3.5", "--steps needs an integer, got '3.5'"},
        {"lag none 0 --steps <empty>", "--steps needs a value, got an empty one"},
        {"lag none 0 --dim 0x40", "--dim needs an integer, got '0x40'"},
        {"lag none 0 --steps 99999999999999999999", "--steps needs an integer, got '99999999999999999999'"},
        {"lag none x", "SEED needs an integer, got 'x'"},
        {"lag none -1", "SEED must be a non-negative integer, got '-1'"},
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
        {"seen none 0 --train-len 1", "and log 1 = 0"},
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
    const Outcome trained = run(folder, "train_position", tiny_with({"--save", saved}, "lag rope 0"));
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
        const auto args = tiny_with(concat({"--steps", "0", "--load", c.file}, words(c.flags)), "lag rope 0");
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "weights file '" + c.file + "': ");
        check_one_line_refusal(o, 1, "train_position", c.message);
    }
    // The right parameters, saved for another scheme: only the file's metadata can tell.
    const auto other_scheme = tiny_with({"--steps", "0", "--load", saved}, "lag none 0");
    check_one_line_refusal(run(folder, "train_position", other_scheme), 1, "train_position",
                           "saved as lag rope; this run is lag none");
    // And the good file still loads.
    CHECK(run(folder, "train_position", tiny_with({"--steps", "0", "--load", saved}, "lag rope 0")).status == 0);
}

TEST_CASE("train_position: a loss driven to NaN by a huge learning rate stops training, naming the step", "[cli]") {
    Folder folder("nan_loss");
    for (const char* run_line : {"lag none 0", "seen rope 1"}) {
        INFO(run_line);
        const std::string weights = folder.file("never_written.safetensors");
        const auto args = tiny_with({"--steps", "50", "--lr", "1e30", "--save", weights}, run_line);
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "(try a smaller --lr)");
        CHECK_THAT(o.err, Matches("train_position: training stopped at step [0-9]+: the loss is -?(nan|inf)[^\n]*\n"));
        CHECK_FALSE(fs::exists(weights));  // nothing is saved from a run that failed
        CHECK_FALSE(fs::exists(weights + ".tmp"));
    }
    // One step: its loss was finite, but the weights it left give NaN outputs. An argmax over NaN would
    // still print a plausible accuracy; the evaluation refuses instead, and no result line is printed.
    const auto one_step = tiny_with({"--steps", "1", "--lr", "1e30"}, "lag none 0");
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
    REQUIRE(run(folder, "train_position", tiny_with({"--save", "s0"}, "lag rope 0")).status == 0);
    REQUIRE(run(folder, "train_position", tiny_with({"--save", "s1"}, "lag rope 1")).status == 0);
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
        {"--threads 0", "--threads must be a whole number from 1 to "},
        {"--repeats <empty>", "--repeats needs a value, got an empty one"},
        {"--kernels fused", "--kernels needs plain, fast or both, got 'fused'"},
        {"--scaling 1", "--scaling needs a thread count from 2 to 64, got 1"},
        {"--scaling 65", "--scaling needs a thread count from 2 to 64, got 65"},
        {"--scaling 2 --threads 2", "it takes no --threads or --kernels"},
        {"--scaling 2 --kernels fast", "it takes no --threads or --kernels"},
    };
    for (const auto& [line, message] : cases) {
        INFO("bench_step " << line);
        check_one_line_refusal(run(folder, "bench_step", words(line)), 2, "bench_step", message);
    }
}

TEST_CASE("bench_step --scaling: waiting threads spin briefly unless the user chose how they wait", "[cli]") {
    Folder folder("bench_scaling");
    // The environment the program is started with, and the wait setting its restarted process runs with.
    const std::pair<const char*, const char*> cases[] = {
        {"env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY", "waiting threads: GOMP_SPINCOUNT=100000\n"},
        {"env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=passive", "waiting threads: OMP_WAIT_POLICY=passive\n"},
        {"env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=50", "waiting threads: GOMP_SPINCOUNT=50\n"},
    };
    for (const auto& [environment, setting] : cases) {
        INFO(environment);
        write_bytes(folder.file("run.in"), "");
        const std::vector<std::string> args = words("--scaling 2 --steps 1 --repeats 1");
        const int status = shell(folder, std::string("exec ") + environment + " " + command_for(folder, "bench_step", args, "run"));
        const Outcome o = collected(folder, "run", status);
        INFO("stdout: " << o.out << "stderr: " << o.err);
        CHECK(o.status == 0);
        CHECK(o.err.empty());
        CHECK_THAT(o.out, Contains(setting));
        CHECK_THAT(o.out, Matches("(.|\n)*bench: 2 threads asked / 1 thread: [0-9.]+ as the machine is, [0-9.]+ with one core busy\n(.|\n)*"));
    }
    // On one CPU there is no core to spare for the busy loop: refused before any timing.
    write_bytes(folder.file("run.in"), "");
    const std::string one_cpu = "exec taskset -c 0 ";
    const int status = shell(folder, one_cpu + command_for(folder, "bench_step", words("--scaling 2 --steps 1 --repeats 1"), "run"));
    check_one_line_refusal(collected(folder, "run", status), 1, "bench_step", "--scaling needs at least 2 CPUs to run on");
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
    CHECK_THAT(o.out, Contains("query at      13, key at     113 (distance    +100)"));
    CHECK_THAT(o.out, Contains("lesson 06: ok"));
}

namespace {

// What `sh -c script` left: run in `folder`, its stdout and stderr in tag.out and tag.err.
Outcome script(const Folder& folder, const std::string& text, const std::string& tag = "script") {
    write_bytes(folder.file(tag + ".in"), "");
    const int status = shell(folder, "bash -c " + quoted(text) + " <" + quoted(folder.file(tag + ".in")) + " >" +
                                         quoted(folder.file(tag + ".out")) + " 2>" + quoted(folder.file(tag + ".err")));
    return collected(folder, tag, status);
}

std::string program_path(const std::string& program) { return quoted(build_dir + "/" + program); }

// tiny_with's arguments as one shell line: "lag rope 0 --steps 3 ...".
std::string tiny_line(const std::string& start, const std::vector<std::string>& extra = {}) {
    std::string line;
    for (const std::string& word : tiny_with(extra, start)) line += (line.empty() ? "" : " ") + quoted(word);
    return line;
}

// The files in `folder` whose names hold ".tmp": what a write that failed or was killed left behind.
std::vector<std::string> temporary_files(const Folder& folder) {
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(folder.path))
        if (entry.path().filename().string().find(".tmp") != std::string::npos) left.push_back(entry.path().string());
    return left;
}

}  // namespace

TEST_CASE("train_position: every flag refuses a missing, empty or repeated value, and numbers outside the one syntax", "[cli]") {
    Folder folder("flag_classes");
    const std::vector<std::string> integer_flags = {"--steps", "--batch", "--train-len", "--dim", "--layers", "--heads",
                                                    "--mlp", "--lag", "--vocab", "--eval-seqs"};
    const std::vector<std::string> other_flags = {"--test-lens", "--lr", "--load", "--save", "--extend", "--kernels", "--threads"};
    const std::string junk = "\xff\xfe\n\x1b[31m";  // not UTF-8, a newline and a terminal escape
    int cases = 0;
    const auto refused = [&](const std::vector<std::string>& args, const std::string& fragment) {
        INFO("train_position " << [&] { std::string s; for (auto& a : args) s += "[" + a + "] "; return s; }());
        check_one_line_refusal(run(folder, "train_position", args), 2, "train_position", fragment);
        ++cases;
    };
    for (const std::vector<std::string>* flags : {&integer_flags, &other_flags})
        for (const std::string& flag : *flags) {
            refused(tiny_with({flag}), flag + " needs a value");
            refused(tiny_with({flag, ""}), flag + " needs a value, got an empty one");
            const std::string good = flag == "--test-lens" ? "32,64" : flag == "--lr" ? "0.01" : flag == "--extend" ? "pi"
                                     : flag == "--kernels" ? "fast" : flag == "--load" || flag == "--save" ? "w" : "4";
            refused(tiny_with({flag, good, flag, good}), flag + " is given twice");
            // Junk is quoted with its bytes escaped, so the message stays one line. (Junk is a valid
            // file name for --save; for --load it names no file, a failed run, exit code 1.)
            if (flag == "--save") continue;
            const Outcome o = run(folder, "train_position", tiny_with({flag, junk}, "lag rope 0"));
            check_one_line_refusal(o, flag == "--load" ? 1 : 2, "train_position", "\\xff\\xfe\\x0a\\x1b[31m");
            ++cases;
        }
    refused(tiny_with({"--quiet", "--quiet"}), "--quiet is given twice");
    // Integers: digits with an optional leading '-', nothing else.
    for (const std::string& flag : integer_flags)
        for (const std::string value : {"+5", " 5", "5 ", "0x10", "1e3", "5.0", "99999999999999999999", "-", "--5"})
            refused(tiny_with({flag, value}), flag + " needs an integer, got '" + value + "'");
    refused(tiny_with({"--heads", "-5"}), "--heads must be positive, got -5");
    refused(tiny_with({"--lag", "-1"}), "--lag must be positive, got -1");
    for (const std::string value : {"+0.01", " 0.01", "0.01 ", "0x1p-7", "1e", ".", "-.", "1e400", "infinity"})
        refused(tiny_with({"--lr", value}), "--lr needs a number, got '" + value + "'");
    refused(tiny_with({"--lr", "-0.01"}), "--lr must be a positive number");
    for (const std::string value : {"32,+64", "32, 64", "32 ,64", "0x20", "32,1e2"}) refused(tiny_with({"--test-lens", value}), "--test-lens needs an integer");
    for (const std::string value : {"+2", " 2", "2 ", "0x2", "1e1", "0", "-3", "99999999", "100000000000000000000"})
        refused(tiny_with({"--threads", value}), "--threads must be a whole number from 1 to ");
    for (const std::string seed : {"+5", " 5", "5 ", "0x10", "1e3", "99999999999999999999", "-"})
        refused(concat({"lag", "none", seed}, tiny), "SEED needs an integer, got '" + seed + "'");
    refused(concat({"lag", "none", "-1"}, tiny), "SEED must be a non-negative integer, got '-1'");
    for (const std::string spec : {"rope:+100", "rope: 100", "rope:100 ", "alibi:0x1p-1", "rope:1e"})
        refused(concat({"lag", spec, "0"}, tiny), "is not a number");
    for (const std::string spec : {"pi:+2", "ntk: 2", "yarn:2 ", "pi:0x2"})
        refused(tiny_with({"--extend", spec}, "lag rope 0"), "is not a number");
    refused(tiny_with({"--train-len", "1"}, "seen none 0"), "--train-len must be at least 2, got 1: the scaled test multiplies the scores by log(test length) / log(train length), and log 1 = 0");
    CHECK(cases > 150);
    // And the one syntax still reads what it should.
    CHECK(run(folder, "train_position", tiny_with({"--lr", ".5e-3"}, "lag rope 007")).status == 0);
    CHECK(run(folder, "train_position", tiny_with({"--lr", "5E-4", "--test-lens", "32,064"}, "lag rope 0")).status == 0);
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
        // A closed pipe: the program's own exit code, taken from the pipeline, and its stderr.
        const Outcome piped = script(folder, command + " 2>piped.err | head -c0; exit ${PIPESTATUS[0]}");
        const Outcome closed{piped.status, "", read_bytes(folder.file("piped.err"))};
        check_one_line_refusal(closed, 1, name, "cannot write to standard output (Broken pipe)");
    }
    // Past a file-size limit: --help is longer than 1024 bytes.
    const Outcome limited = script(folder, "ulimit -f 1; exec " + program_path("train_position") + " --help > help.txt");
    check_one_line_refusal(limited, 1, "train_position", "cannot write to standard output (File too large)");
}

TEST_CASE("thread counts in the environment are bounded, and checked before OpenMP and OpenBLAS start", "[cli]") {
    Folder folder("thread_environment");
    const std::vector<std::string> programs = {"train_position " + tiny_line("lag rope 0"), "lessons/03_sinusoids",
                                               "bench_step --steps 1 --repeats 1", "collect_results --prune runs 0"};
    int cases = 0;
    for (const char* variable : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"})
        for (const std::string value : {"abc", "", "0", "-3", "+2", " 2", "2 ", "4,2", "0x2", "99999999", "\xff\n"})
            for (const std::string& program : programs) {
                INFO(variable << "='" << value << "' " << program);
                const std::string name = fs::path(words(program)[0]).filename().string();
                const Outcome o = script(folder, std::string(variable) + "=" + quoted(value) + " exec " +
                                                     quoted(build_dir) + "/" + program);
                check_one_line_refusal(o, 2, name, std::string(variable) + " is '");
                check_one_line_refusal(o, 2, name, "a thread count must be a whole number from 1 to ");
                ++cases;
            }
    CHECK(cases == 3 * 11 * 4);
    CHECK(script(folder, "OMP_NUM_THREADS=1 exec " + program_path("train_position") + " " + tiny_line("lag rope 0")).status == 0);
}

TEST_CASE("under an address-space limit a run ends with one out-of-memory line, never a spin in OpenBLAS", "[cli]") {
    // A sanitizer build maps terabytes of shadow memory at start-up, which no such limit allows.
    if (fs::path(build_dir).filename() != "build") return;
    Folder folder("address_space");
    for (const char* limit : {"50000", "200000", "400000", "550000"}) {
        INFO("ulimit -v " << limit);
        // Two threads whatever the machine's load (a busy core would make it one: tasks/thread_policy.hpp).
        const Outcome o = script(folder, std::string("ulimit -v ") + limit +
                                             "; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 60 " +
                                             program_path("train_position") + " lag rope 0 --steps 5");
        check_one_line_refusal(o, 1, "train_position", "out of memory: the address-space limit (ulimit -v) is ");
        check_one_line_refusal(o, 1, "train_position", "a run needs at least ");
    }
    // Enough for the default run, not for one a hundred times its size: the run's own allocation fails.
    const std::string enough =
        "ulimit -v 1000000; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 120 " + program_path("train_position");
    CHECK(script(folder, enough + " lag rope 0 --steps 5").status == 0);
    check_one_line_refusal(script(folder, enough + " lag rope 0 --steps 2 --batch 512 --dim 512 --mlp 2048 --eval-seqs 512"),
                           1, "train_position", "out of memory: this run's sizes");
    // One thread needs less: the same small limit then suffices.
    CHECK(script(folder, "ulimit -v 550000; OMP_NUM_THREADS=1 exec timeout 60 " + program_path("train_position") +
                             " lag rope 0 --steps 5").status == 0);
    // A data limit (ulimit -d) counts OpenBLAS's buffers too.
    check_one_line_refusal(script(folder, "ulimit -d 200000; OMP_DYNAMIC=false OMP_NUM_THREADS=2 exec timeout 60 " +
                                              program_path("train_position") +
                                              " lag rope 0 --steps 5"),
                           1, "train_position", "out of memory: the data limit (ulimit -d) is ");
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
    refused("lessons/05_rope", {"--kernels", "fast", "--kernels", "plain"}, lesson, "--kernels is given twice");
    refused("lessons/05_rope", {"--kernels", ""}, lesson, "unknown argument '--kernels' without plain or fast after it");
    refused("lessons/06_rope_exercise", {"--try", "--try"}, build_dir + "/lessons/06_rope_exercise", "--try is given twice");
    refused("lessons/05_rope", {"\xff\n"}, lesson, "unknown argument '\\xff\\x0a'");
}

TEST_CASE("train_position: the result line is never cut, whatever the scheme's length", "[cli]") {
    Folder folder("long_scheme");
    const std::string scheme = "rope:1000000000000000000000000000000000000000000000000000000000000000000000000000000000000";
    const Outcome o = run(folder, "train_position", tiny_with({"--extend", "yarn:1.25"}, "lag " + scheme + " 0"));
    REQUIRE(o.status == 0);
    CHECK_THAT(o.out, StartsWith("lag  " + scheme + "+yarn:1.25 seed 0: length 32 / 64 / 128: "));
    CHECK_THAT(o.out, Matches(".*; scores x log128/log32: [01]\\.[0-9]{3}\n"));
}
