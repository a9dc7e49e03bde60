// bench_step: how fast one training step of the experiment's model is, and where the time goes.
// Trains lag with rope (B=64, T=32, D=64, 2 layers, 1 head, MLP 256) on each kernels setting asked
// for (startup/kernels_choice.hpp; by default both, their repeats taken in turn so that both see the
// same machine) and prints for each the median over repeats of ms per step, tokens per second, the
// matmuls' share and their achieved GFLOP/s next to what cblas_sgemm reaches alone on the very same
// shapes (the matmul-bound floor of a step), and the split into forward, backward and optimizer;
// then the process's peak resident memory. With --shapes N it also prints the N product shapes that
// spend the most time a step above their floor, each with its calls a step and its time a call in
// the step and alone: where the products lose time to the rest of the step (cold operands, mostly).
//   build/bench_step [--steps N] [--repeats R] [--threads T] [--kernels plain|fast|both] [--shapes N]
//                    [--dim D] [--layers L] [--length T] [--batch B]   (each at most once)
// --dim, --layers, --length and --batch change the model and batch from the chapter's (D 64, 2
// layers, T 32, B 64; the MLP is always 4 x D wide, one head) to see how a step's cost grows.
// With --scaling T it times instead the training step train_position takes (the fast kernels, the
// batch in micro-batches: fast/split_step.hpp) on 1 thread against T threads asked (the
// count set_threads then uses is printed too: no more than the cores found free), their repeats
// taken in turn: first as the machine is, then with one core held by a busy-loop child process
// (pinned to the last CPU the benchmark may run on, at the benchmark's own priority, killed by
// its pid at the end), and prints both ratios, T threads / 1 thread.
//   build/bench_step --scaling T [--steps N] [--repeats R] [--dim D] [--layers L] [--length T] [--batch B]
// With --train-step T it times that step alone on T threads asked for, the figure make bench-torch
// sets beside PyTorch's step on T threads (BENCH_THREADS).
//   build/bench_step --train-step T [--steps N] [--repeats R] [--dim D] [--layers L] [--length T] [--batch B]
// Its flags are read in bench/bench_flags.cpp; --scaling and --train-step are bench/thread_scaling.cpp.
// Leaves out comparisons with PyTorch (bench/torch_step.py, make bench-torch).
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/adamw.hpp"
#include "autograd/ops.hpp"
#include "nn/transformer.hpp"
#include "positional/make_position.hpp"
#include "tensor/number_text.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"
#include "startup/thread_policy.hpp"
#include "tasks/task.hpp"
#include "bench/bench_flags.hpp"
#include "bench/gemm_recording.hpp"
#include "bench/thread_scaling.hpp"
#include "bench/timing.hpp"
#include "startup/kernels_choice.hpp"
#include "tensor/gemm.hpp"

using namespace wai;
using namespace wai::bench;

namespace {

struct PhaseTimes {
    double forward = 0, backward = 0, optimizer = 0;
};

// The time cblas_sgemm alone needs for every call a step made: each recorded shape is rerun in a
// tight loop on fresh buffers, and its best time counts once per call the step made. `best`, when
// given, receives each shape's best time for one call.
double sgemm_floor_seconds(const std::vector<GemmShapeStats>& shapes, int64_t steps, std::vector<double>* best_per_call = nullptr) {
    double total = 0;
    if (best_per_call) best_per_call->clear();
    for (const GemmShapeStats& s : shapes) {
        std::vector<float> A(s.M * s.K, 0.5f), B(s.K * s.N, 0.25f), C(s.M * s.N);
        double best = 1e9;
        for (int r = 0; r < 50; ++r) {
            const auto start = Clock::now();
            sgemm(s.trans_a, s.trans_b, s.M, s.N, s.K, 1.0f, A.data(), B.data(), 0.0f, C.data());
            best = std::min(best, seconds_since(start));
        }
        total += best * static_cast<double>(s.calls) / static_cast<double>(steps);
        if (best_per_call) best_per_call->push_back(best);
    }
    return total;
}

// One kernels setting's model, optimizer and data, and what its repeats measured.
struct Run {
    Kernels kernels;
    Task task = make_task("lag");
    Generator init{1}, data{2};
    std::unique_ptr<Transformer> model;
    std::unique_ptr<AdamW> optimizer;
    std::vector<double> ms_per_step, matmul_share, matmul_gflops;
    double matmul_flops_per_step = 0;
    std::vector<GemmShapeStats> shapes;
    PhaseTimes phases;

    Run(Kernels k, const Sizes& sizes) : kernels(k) {
        TransformerConfig config;
        config.vocab = task.vocab;
        config.outputs = task.outputs();
        config.dim = sizes.dim;
        config.layers = sizes.layers;
        config.mlp_hidden = 4 * sizes.dim;
        auto position = make_position_encoding(parse_position_spec("rope"), config.dim, config.heads, init);
        const TransformerMaker make = transformer_maker(kernels);
        model = make ? make(config, std::move(position), init) : std::make_unique<Transformer>(config, std::move(position), init);
        optimizer = std::make_unique<AdamW>(model->parameters());
    }

    void step(int64_t B, int64_t T, PhaseTimes* times) {
        const Batch batch = task.sample(data, B, T);
        auto start = Clock::now();
        Value loss = cross_entropy(model->forward(batch.tokens, B, T), batch.targets);
        if (times) times->forward += seconds_since(start);
        start = Clock::now();
        optimizer->zero_grad();
        loss.backward();
        if (times) times->backward += seconds_since(start);
        start = Clock::now();
        optimizer->step();
        if (times) times->optimizer += seconds_since(start);
    }

    // One repeat of `steps` steps. The headline time comes from repeats with the matmul bookkeeping
    // off; the matmuls' share and rate from as many repeats with it on (it times every product).
    void repeat(int64_t B, int64_t T, int steps, int repeats, bool recorded) {
        clear_gemm_stats();
        set_gemm_recording(recorded);
        PhaseTimes times;
        const auto start = Clock::now();
        for (int s = 0; s < steps; ++s) step(B, T, recorded ? nullptr : &times);
        const double elapsed = seconds_since(start);
        set_gemm_recording(false);
        if (!recorded) {
            ms_per_step.push_back(1e3 * elapsed / steps);
            phases.forward += times.forward / steps / repeats;
            phases.backward += times.backward / steps / repeats;
            phases.optimizer += times.optimizer / steps / repeats;
            return;
        }
        shapes = gemm_stats();
        double gemm_seconds = 0, flops = 0;
        for (const GemmShapeStats& g : shapes) {
            gemm_seconds += g.seconds;
            flops += 2.0 * g.M * g.N * g.K * g.calls;
        }
        matmul_share.push_back(gemm_seconds / elapsed);
        matmul_gflops.push_back(flops / gemm_seconds / 1e9);
        matmul_flops_per_step = flops / steps;
    }

    // Returns the median ms per step. With `shown` > 0, also that many products, those with the
    // most time a step above their floor first: where the matrix products lose time in the step.
    double report(int64_t B, int64_t T, int steps, int repeats, int shown) const {
        std::vector<double> floors;
        std::vector<std::vector<double>> best(shapes.size());  // each shape's best call, per floor measurement
        for (int r = 0; r < 5; ++r) {
            std::vector<double> per_call;
            floors.push_back(sgemm_floor_seconds(shapes, steps, &per_call));
            for (size_t i = 0; i < shapes.size(); ++i) best[i].push_back(per_call[i]);
        }
        const double floor_ms = 1e3 * median(floors);
        const double step_ms = median(ms_per_step);
        const char* name = kernels_name(kernels);
        std::printf("bench: %s kernels: median of %d repeats x %d steps: %.2f ms per step (min %.2f, max %.2f), %.0f tokens/s\n",
                    name, repeats, steps, step_ms, *std::min_element(ms_per_step.begin(), ms_per_step.end()),
                    *std::max_element(ms_per_step.begin(), ms_per_step.end()), B * T / (step_ms / 1e3));
        std::printf("bench: %s kernels: matmuls %.2f GFLOP per step, %.0f%% of the step, at %.1f GFLOP/s; cblas_sgemm alone "
                    "on the same shapes: %.2f ms (%.1f GFLOP/s), the floor: step / floor = %.2f\n",
                    name, matmul_flops_per_step / 1e9, 100 * median(matmul_share), median(matmul_gflops), floor_ms,
                    matmul_flops_per_step / (floor_ms / 1e3) / 1e9, step_ms / floor_ms);
        std::printf("bench: %s kernels: forward %.2f ms, backward %.2f ms, optimizer %.2f ms (means)\n", name,
                    1e3 * phases.forward, 1e3 * phases.backward, 1e3 * phases.optimizer);
        if (shown > 0) report_shapes(best, steps, shown);
        return step_ms;
    }

    // One line per product shape (C = op(A) op(B), op(A) M x K, op(B) K x N; T marks a transposed
    // operand): its calls a step, its mean time a call in the step (from the repeats that timed every
    // product), its best time a call alone (the median over the floor's measurements of the best of
    // 50), and the time a step it spends above that.
    void report_shapes(const std::vector<std::vector<double>>& best, int steps, int shown) const {
        struct Row {
            const GemmShapeStats* shape;
            double in_step_us, alone_us, above_ms;
        };
        std::vector<Row> rows;
        for (size_t i = 0; i < shapes.size(); ++i) {
            const GemmShapeStats& g = shapes[i];
            const double calls = static_cast<double>(g.calls) / steps;
            const double in_step = g.seconds / static_cast<double>(g.calls), alone = median(best[i]);
            rows.push_back({&g, 1e6 * in_step, 1e6 * alone, 1e3 * calls * (in_step - alone)});
        }
        std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.above_ms > b.above_ms; });
        const char* name = kernels_name(kernels);
        std::printf("bench: %s kernels: the %d products with the most time above their floor (of %zu shapes):\n", name,
                    std::min<int>(shown, static_cast<int>(rows.size())), rows.size());
        for (size_t i = 0; i < rows.size() && i < static_cast<size_t>(shown); ++i) {
            const GemmShapeStats& g = *rows[i].shape;
            std::printf("bench: %s kernels: product %c%c M %lld N %lld K %lld, %.1f calls a step: %.2f us a call in the "
                        "step, %.2f alone (%.2fx), %.3f ms a step above its floor\n",
                        name, g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', static_cast<long long>(g.M),
                        static_cast<long long>(g.N), static_cast<long long>(g.K), static_cast<double>(g.calls) / steps,
                        rows[i].in_step_us, rows[i].alone_us, rows[i].in_step_us / rows[i].alone_us, rows[i].above_ms);
        }
    }
};

}  // namespace

const char* const usage =
    "usage: bench_step [--steps N] [--repeats R] [--threads T] [--kernels plain|fast|both] [--shapes N]\n"
    "                  [--dim D] [--layers L] [--length T] [--batch B]   (each at most once)\n"
    "       bench_step --scaling T [--steps N] [--repeats R] [--dim D] [--layers L] [--length T] [--batch B]\n"
    "       bench_step --train-step T [--steps N] [--repeats R] [--dim D] [--layers L] [--length T] [--batch B]\n"
    "One training step of the experiment's model (lag rope, D 64, 2 layers, T 32, B 64 unless given),\n"
    "timed on each kernels setting against cblas_sgemm alone on the same shapes; --shapes N lists the N\n"
    "products furthest above that floor; --scaling T times 1 thread against T (docs/performance.md);\n"
    "--train-step T times train_position's step alone on T threads (make bench-torch BENCH_THREADS=T).\n";

int bench_main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg != "--help" && arg != "-h") continue;
        if (argc == 2) {
            std::printf("%s", usage);
            return 0;
        }
        refuse(arg + " stands alone (bench_step --help), got it with other arguments");
    }
    const int steps = parse_flag(argc, argv, "--steps", 40);
    const int repeats = parse_flag(argc, argv, "--repeats", 7);
    const int threads = parse_flag(argc, argv, "--threads", 1);
    const std::vector<Kernels> kernels = parse_kernels_flag(argc, argv);
    const bool scaled = flag_value(argc, argv, "--scaling") != nullptr;
    const int shown = parse_flag(argc, argv, "--shapes", 0);  // 0: not asked for; when given, 1 to 100000
    const int many = parse_flag(argc, argv, "--scaling", 2);
    if (scaled && (flag_value(argc, argv, "--threads") != nullptr || flag_value(argc, argv, "--kernels") != nullptr))
        refuse("--scaling times 1 thread against N on the fast kernels: it takes no --threads or --kernels");
    if (scaled && flag_value(argc, argv, "--shapes") != nullptr) refuse("--scaling times whole steps: it takes no --shapes");
    const bool trained = flag_value(argc, argv, "--train-step") != nullptr;
    const int trained_threads = parse_flag(argc, argv, "--train-step", 1);
    if (trained && (scaled || flag_value(argc, argv, "--threads") != nullptr || flag_value(argc, argv, "--kernels") != nullptr ||
                    flag_value(argc, argv, "--shapes") != nullptr))
        refuse("--train-step T times train_position's step on T threads: it takes no --scaling, --threads, --kernels or --shapes");
    Sizes sizes;
    sizes.dim = size_flag(argc, argv, "--dim", sizes.dim, 2, 4096, /*even=*/true);
    sizes.layers = size_flag(argc, argv, "--layers", sizes.layers, 1, 64);
    // Longer than the lag task's lag (3): a shorter sequence has no position to score.
    sizes.length = size_flag(argc, argv, "--length", sizes.length, make_task("lag").lag + 1, 4096);
    sizes.batch = size_flag(argc, argv, "--batch", sizes.batch, 1, 4096);
    set_threads(threads);
    const int64_t B = sizes.batch, T = sizes.length;
    // 2 is OpenBLAS's OpenMP build; the pthread build beside our OpenMP loops is 3-5x slower (docs/performance.md, section 3).
    if (openblas_get_parallel() != 2)
        std::fprintf(stderr, "bench_step: warning: OpenBLAS is not its OpenMP build (openblas_get_parallel() = %d); "
                             "install libopenblas-openmp-dev\n", openblas_get_parallel());
    if (scaled) return thread_scaling(many, steps, repeats, sizes);
    if (trained) return train_step(trained_threads, steps, repeats, sizes);

    std::vector<std::unique_ptr<Run>> runs;
    for (Kernels k : kernels) runs.push_back(std::make_unique<Run>(k, sizes));
    for (auto& run : runs)
        for (int i = 0; i < 5; ++i) run->step(B, T, nullptr);  // warm-up: first allocations, BLAS buffers
    // The settings' repeats in turn, so that a change in the machine's speed falls on both alike.
    for (int r = 0; r < 2 * repeats; ++r)
        for (auto& run : runs) run->repeat(B, T, steps, repeats, /*recorded=*/r % 2 == 1);

    std::printf("bench: lag rope, B=%lld T=%lld D=%lld, %lld layers, MLP %lld, %d threads, OpenBLAS %s kernels, "
                "openblas_get_parallel() = %d (the OpenMP build)\n",
                static_cast<long long>(B), static_cast<long long>(T), static_cast<long long>(sizes.dim),
                static_cast<long long>(sizes.layers), static_cast<long long>(4 * sizes.dim), threads, blas_kernels(),
                openblas_get_parallel());
    std::printf("bench: OpenBLAS %s kernels: %s\n", blas_kernels(), blas_kernels_origin().c_str());
    std::vector<double> step_ms;
    for (const auto& run : runs) step_ms.push_back(run->report(B, T, steps, repeats, shown));
    if (runs.size() == 2)
        std::printf("bench: plain / fast = %.2f: the same step takes that many times as long on the plain kernels\n",
                    step_ms[1] / step_ms[0]);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("bench: peak resident memory %.1f MB (both settings' models together)\n", usage.ru_maxrss / 1024.0);
    return 0;
}

int main(int argc, char** argv) {
    prepare_process(argv);
    try {
        return bench_main(argc, argv);
    } catch (const std::bad_alloc&) {  // sizes the flags allow but the machine's memory does not hold
        std::fprintf(stderr, "bench_step: out of memory for these sizes; give a smaller --dim, --length, --batch or --layers\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_step: %s\n", one_line(e.what()).c_str());
        return 1;
    }
}
