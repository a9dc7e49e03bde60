// train_position: one run of the chapter's experiment from the command line, one result line on stdout.
//   build/train_position TASK SCHEME SEED [--steps N] [--batch N] [--train-len N] [--test-lens 32,64,128]
//     [--dim N] [--layers N] [--heads N] [--mlp N] [--lr X] [--lag N] [--vocab N] [--eval-seqs N]
//     [--threads N] [--quiet] [--load FILE] [--save FILE] [--save-layout ours|chapter] [--extend METHOD[:s]]
//     [--kernels plain|fast] [--verbose] [--check-flags]
// --check-flags only checks the arguments, as a run would before it starts, and runs nothing: make
// experiment asks it about RUN_FLAGS before it removes any result made with other flags.
// --extend tests a RoPE model with a context extension (pi, ntk, yarn; positional/context_extension.hpp).
// --kernels picks the model made (startup/kernels_choice.hpp): the same result either way.
// --verbose says on stderr, before training, what the run computes with: the kernels setting, the
// OpenBLAS kernels and where that choice came from (startup/openblas_startup.hpp), the threads.
// --load FILE starts from saved weights (then --steps 0 only evaluates them); --save FILE writes the
// weights after training (safetensors, files/weights_file.hpp; written whole or not at all, and never
// onto a folder, a device or a symbolic link: files/atomic_file.hpp), named as here or, with
// --save-layout chapter, as the chapter's PyTorch model names them; --load reads either.
// Each flag at most once, and none with an empty value. Numbers as tensor/number_text.hpp reads
// them: digits with an optional leading '-' ("+5", " 5", "0x10", "1e3" are refused for integers).
// Progress goes to stderr when it is a terminal. Bad input: one line naming the fault, exit code 2; a run
// that fails (an unreadable or corrupt weight file, a loss that is not finite, memory): one line, exit code 1.
// Leaves out running several runs (make experiment does that).
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iterator>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tensor/number_text.hpp"
#include "files/run_weights.hpp"
#include "startup/kernels_choice.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"
#include "tasks/result_line.hpp"

using namespace wai;

namespace {

const char* const usage =
    "usage: train_position TASK SCHEME SEED [--steps N] [--batch N] [--train-len N] [--test-lens 32,64,128]\n"
    "                      [--dim N] [--layers N] [--heads N] [--mlp N] [--lr X] [--lag N] [--vocab N]\n"
    "                      [--eval-seqs N] [--threads N] [--quiet] [--load FILE] [--save FILE]\n"
    "                      [--save-layout ours|chapter] [--extend METHOD[:s]] [--kernels plain|fast]\n"
    "                      [--verbose] [--check-flags]\n"
    "  TASK    lag | seen\n"
    "  SCHEME  none | sinusoid | learned | rope[:base] | alibi[:slope] | t5[:buckets]\n"
    "          | mine (positional/mine.cpp: a scheme of your own, shipped as RoPE)\n"
    "          (alibi without a slope: head h of NH gets 2^(-8h/NH), h = 1..NH, so one head gets 1/256)\n"
    "  SEED    a non-negative integer (digits only)\n"
    "  --load FILE  start from these weights (safetensors, named as here or as the chapter's PyTorch\n"
    "               model names them); with --steps 0, only evaluate them\n"
    "  --save FILE  write the weights after training (safetensors)\n"
    "  --save-layout ours|chapter  name them as here (the default) or as the chapter's PyTorch model,\n"
    "               for its load_state_dict\n"
    "  --extend METHOD[:s]  test a RoPE model with context extension by s: pi, ntk, yarn (as its\n"
    "               authors' code) or yarn-paper (the paper's printed ramp); s defaults to the longest\n"
    "               test length / the training length\n"
    "  --kernels plain|fast  the model as a chain of plain ops, or the same model on the fast kernels\n"
    "               (the default; the same result either way)\n"
    "  --threads N  OpenMP and OpenBLAS threads, 1 to 4 x the CPUs (default: OMP_NUM_THREADS, or every CPU,\n"
    "               no more than are free; 1 with --kernels plain). The fast kernels' step runs its\n"
    "               micro-batches on them (the same numbers on any count)\n"
    "  --verbose    say on stderr which kernels and OpenBLAS kernels (and where their choice came from) and\n"
    "               how many threads the run uses and why, and how a step uses them\n"
    "  --check-flags  only check the arguments (exit code 0, or 2 with the one line a run would give);\n"
    "               run nothing\n"
    "  each flag at most once; numbers are digits with an optional leading '-'\n";

struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};
struct HelpRequested {};

// A real number that stays finite as a float32 (the model's numbers).
float parse_float(const std::string& text, const std::string& what) {
    const auto past_largest = [&] { return UsageError(what + " " + text + " is past the largest float32, about 3.4e38"); };
    const auto below_smallest = [&] { return UsageError(what + " " + text + " is below the smallest normal float32, about 1.2e-38"); };
    double value = 0.0;
    try {
        value = parse_real(text, what);
    } catch (const NumberPastRange& e) {  // past a double's range: past a float's too
        throw e.huge ? past_largest() : below_smallest();
    }
    if (std::abs(value) > std::numeric_limits<float>::max()) throw past_largest();  // would become infinity as a float
    if (value != 0.0 && std::abs(value) < std::numeric_limits<float>::min()) throw below_smallest();  // 0, or its digits lost
    return static_cast<float>(value);
}

// A size flag's number; one past 64 bits is refused with the size's own range, as one just past it is.
int64_t parse_size(const std::string& text, const std::string& name) {
    try {
        return parse_integer(text, name);
    } catch (const NumberPastRange&) {
        throw UsageError(size_refusal(name, text));
    }
}

std::vector<int64_t> parse_lengths(const std::string& text) {
    std::vector<int64_t> lengths;
    std::stringstream s(text);
    std::string item;
    while (std::getline(s, item, ',')) {
        try {
            lengths.push_back(parse_integer(item, "--test-lens"));
        } catch (const NumberPastRange&) {
            throw UsageError(size_refusal("a test length", item));
        }
    }
    if (lengths.empty() || text.back() == ',') throw UsageError("--test-lens needs a list like 32,64,128, got '" + text + "'");
    return lengths;
}

struct Options {
    RunConfig run;
    RunFiles files;
    int threads = 0;  // 0: leave OpenMP's and OpenBLAS's own setting
    bool quiet = false;
    bool check_only = false;
    bool verbose = false;
    Kernels kernels = default_kernels();
};

const char* const flags_with_values[] = {"--steps", "--batch", "--train-len", "--test-lens", "--dim", "--layers",
                                         "--heads", "--mlp", "--lr", "--lag", "--vocab", "--eval-seqs", "--load",
                                         "--save", "--save-layout", "--extend", "--kernels", "--threads"};

// Every flag at most once, each value non-empty and not a flag: a second --steps, an empty --save ""
// or a --save that would take the next flag as its file name is refused rather than one of them
// silently winning or meaning "none". --help stands alone: with other arguments (make's RUN_FLAGS,
// which --check-flags checks) it is refused, never a help text that passes for a successful check.
Options parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg != "--help" && arg != "-h") continue;
        if (argc == 2) throw HelpRequested();
        throw UsageError(arg + " stands alone (train_position --help), got it with other arguments");
    }
    Options o;
    std::vector<std::string> positional, seen;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) {
            positional.push_back(arg);
            continue;
        }
        const bool known = arg == "--quiet" || arg == "--check-flags" || arg == "--verbose" || std::find(std::begin(flags_with_values), std::end(flags_with_values), arg) !=
                                                   std::end(flags_with_values);
        if (!known) throw UsageError("unknown flag '" + arg + "'");
        if (std::find(seen.begin(), seen.end(), arg) != seen.end()) throw UsageError(arg + " is given twice");
        seen.push_back(arg);
        if (arg == "--quiet" || arg == "--check-flags" || arg == "--verbose") {
            (arg == "--quiet" ? o.quiet : arg == "--verbose" ? o.verbose : o.check_only) = true;
            continue;
        }
        if (i + 1 >= argc) throw UsageError(arg + " needs a value");
        const std::string value = argv[++i];
        if (value.empty()) throw UsageError(arg + " needs a value, got an empty one");
        if (value.size() > 2 && value.rfind("--", 0) == 0 && std::isalpha(static_cast<unsigned char>(value[2])))  // "--5" is a bad number
            throw UsageError(arg + " needs a value, got the flag '" + value + "' (a file whose name starts with -- is ./" + value + ")");
        RunConfig& r = o.run;
        if (arg == "--steps") r.steps = parse_size(value, arg);
        else if (arg == "--batch") r.batch = parse_size(value, arg);
        else if (arg == "--train-len") r.train_length = parse_size(value, arg);
        else if (arg == "--test-lens") r.test_lengths = parse_lengths(value);
        else if (arg == "--dim") r.dim = parse_size(value, arg);
        else if (arg == "--layers") r.layers = parse_size(value, arg);
        else if (arg == "--heads") r.heads = parse_size(value, arg);
        else if (arg == "--mlp") r.mlp_hidden = parse_size(value, arg);
        else if (arg == "--lr") {
            r.lr = parse_float(value, arg);
            if (!(r.lr > 0.0f)) throw UsageError("--lr must be a positive number, got '" + value + "'");
        }
        else if (arg == "--lag") r.lag = parse_size(value, arg);
        else if (arg == "--vocab") {
            r.vocab = parse_size(value, arg);
            if (r.vocab <= 0) throw UsageError(size_refusal(arg, value));  // 0 would mean the task's own
        } else if (arg == "--eval-seqs") r.eval_sequences = parse_size(value, arg);
        else if (arg == "--load") o.files.load_path = value;
        else if (arg == "--save") o.files.save_path = value;
        else if (arg == "--save-layout") o.files.save_layout = parse_weights_layout(value, arg);
        else if (arg == "--extend") r.extension = value;
        else if (arg == "--kernels") o.kernels = parse_kernels(value);
        else if (arg == "--threads") o.threads = parse_thread_count(value, arg);
        else throw UsageError("unknown flag '" + arg + "'");
    }
    if (positional.size() != 3)
        throw UsageError("expected TASK SCHEME SEED, got " + std::to_string(positional.size()) + " positional arguments");
    o.run.task = positional[0];
    o.run.scheme = positional[1];
    const auto bad_seed = [&] {
        return UsageError("SEED must be an integer from 0 to " + std::to_string(std::numeric_limits<int64_t>::max()) +
                          ", got '" + positional[2] + "'");
    };
    int64_t seed = 0;
    try {
        seed = parse_integer(positional[2], "SEED");
    } catch (const NumberPastRange&) {
        throw bad_seed();
    }
    if (seed < 0) throw bad_seed();
    o.run.seed = static_cast<uint64_t>(seed);
    check_files(o.run, o.files);  // unknown task, bad scheme, sizes, the files: all refused before any training
    return o;
}

// "\rstep 500/2000  loss 0.1234  41.2 steps/s  36 s left", redrawn at most four times a second.
class ProgressLine {
public:
    void operator()(int64_t step, int64_t total, double loss) {
        const auto now = std::chrono::steady_clock::now();
        if (step == 1) start_ = now;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        if (step != total && now - last_ < std::chrono::milliseconds(250)) return;
        last_ = now;
        const double rate = elapsed > 0 ? (step - 1) / elapsed : 0.0;
        const double left = rate > 0 ? (total - step) / rate : 0.0;
        std::fprintf(stderr, "\rstep %lld/%lld  loss %.4f  %.1f steps/s  %.0f s left   ", static_cast<long long>(step),
                     static_cast<long long>(total), loss, rate, left);
        if (step == total) std::fprintf(stderr, "\n");
    }

private:
    std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace

int main(int argc, char** argv) {
    prepare_process(argv);
    Options options;
    try {
        options = parse(argc, argv);
    } catch (const HelpRequested&) {
        std::printf("%s", usage);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "train_position: %s (train_position --help lists the arguments)\n", one_line(e.what()).c_str());
        return 2;
    }
    if (options.check_only) return 0;
    // The plain kernels thread each op, which costs more than it gains at the chapter's sizes
    // (docs/performance.md, section 14): one thread unless asked for more.
    const char* environment_threads = std::getenv("OMP_NUM_THREADS");
    if (options.threads == 0 && options.kernels == Kernels::plain && (environment_threads == nullptr || *environment_threads == 0))
        set_threads(1, "the plain kernels' choice (threads inside each op cost more than they gain; ask with --threads)");
    else
        set_threads(options.threads);
    options.run.make_transformer = transformer_maker(options.kernels);
    options.run.make_step = step_maker(options.kernels);
    if (options.verbose)
        std::fprintf(stderr, "train_position: --kernels %s; OpenBLAS %s kernels: %s; %d OpenMP thread%s, OpenBLAS %d (%s); %s\n",
                     kernels_name(options.kernels), blas_kernels(), blas_kernels_origin().c_str(), omp_get_max_threads(),
                     omp_get_max_threads() == 1 ? "" : "s", blas_threads(), threads_reason().c_str(),
                     step_description(options.kernels, options.run.batch, omp_get_max_threads()).c_str());
    options.files.load_notice = [](const std::string& note) { std::fprintf(stderr, "train_position: %s\n", note.c_str()); };
    try {
        ProgressLine line;
        const bool show = !options.quiet && isatty(STDERR_FILENO);
        const RunResult result = run_experiment(options.run, show ? ProgressFunction(std::ref(line)) : ProgressFunction(),
                                                weights_hooks(options.run, options.files));
        std::printf("%s\n", format_result_line(options.run, result).c_str());
        return 0;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "train_position: out of memory: this run's sizes (--batch, --dim, --mlp, lengths, "
                             "--eval-seqs) need more memory than the machine has or its limits allow (ulimit -v)\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "train_position: %s\n", one_line(e.what()).c_str());
        return 1;
    }
}
