// bench_step's timings of train_position's step on threads (bench/thread_scaling.hpp): the step
// built as train_position builds it, timed on the thread counts asked for, their repeats in turn.
#include "bench/thread_scaling.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench/busy_core.hpp"
#include "bench/timing.hpp"
#include "fast/split_step.hpp"
#include "startup/kernels_choice.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/thread_policy.hpp"
#include "tasks/experiment.hpp"

namespace wai::bench {

namespace {

// A run's training as train_position takes it on the fast kernels: its model, optimizer, batches and
// step function (fast::make_split_step: the batch in micro-batches, one thread each).
struct Training {
    RunConfig config;
    std::unique_ptr<Transformer> model;
    std::unique_ptr<TrainingState> state;
    StepFunction step;

    explicit Training(const Sizes& sizes) {
        config.task = "lag", config.scheme = "rope";
        config.dim = sizes.dim, config.layers = sizes.layers, config.mlp_hidden = 4 * sizes.dim;
        config.train_length = sizes.length, config.batch = sizes.batch;
        config.make_transformer = transformer_maker(Kernels::fast);
        config.make_step = step_maker(Kernels::fast);
        model = make_model(config);
        state = std::make_unique<TrainingState>(*model, config);
        step = config.make_step(*model, config);
    }
};

// ms per step of `steps` steps of `run` on `threads` threads asked for, as a program asks for them
// (set_threads: no more than the cores found free); `used` gets the count set_threads chose.
double timed_steps(Training& run, int threads, int steps, std::vector<int>* used = nullptr) {
    set_threads(threads);
    if (used) used->push_back(omp_get_max_threads());
    const auto start = Clock::now();
    for (int s = 0; s < steps; ++s) run.step(*run.model, run.state->optimizer, run.state->task, run.state->data, run.config);
    return 1e3 * seconds_since(start) / steps;
}

}  // namespace

// 1 thread against `threads` threads on the fast kernels and their step, as the machine is and with
// one core busy. Each thread count trains its own model from the same start; their repeats alternate
// (and which goes first alternates too), so both see the same machine.
int thread_scaling(int threads, int steps, int repeats, const Sizes& sizes) {
    const int64_t B = sizes.batch, T = sizes.length;
    Training one(sizes), many(sizes);
    const auto measure = [&](std::vector<double>& one_ms, std::vector<double>& many_ms, std::vector<int>& used) {
        timed_steps(one, 1, 3);  // warm-up, and the busy loop settles on its core
        timed_steps(many, threads, 3);
        for (int r = 0; r < repeats; ++r) {
            if (r % 2 == 0) one_ms.push_back(timed_steps(one, 1, steps));
            many_ms.push_back(timed_steps(many, threads, steps, &used));
            if (r % 2 == 1) one_ms.push_back(timed_steps(one, 1, steps));
        }
    };
    const int busy_cpu = BusyCore::spare_cpu();
    if (busy_cpu < 0) {
        std::fprintf(stderr, "bench_step: --scaling needs at least 2 CPUs to run on, one of them for the busy loop\n");
        return 1;
    }
    std::vector<double> idle_one, idle_many, busy_one, busy_many;
    std::vector<int> idle_used, busy_used;
    measure(idle_one, idle_many, idle_used);
    try {
        const BusyCore busy(busy_cpu);
        measure(busy_one, busy_many, busy_used);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "bench_step: %s\n", e.what());
        return 1;
    }
    std::printf("bench: lag rope, B=%lld T=%lld D=%lld, %lld layers, fast kernels, %lld micro-batches a step, OpenBLAS %s "
                "kernels, waiting threads: %s\n",
                static_cast<long long>(B), static_cast<long long>(T), static_cast<long long>(sizes.dim),
                static_cast<long long>(sizes.layers), static_cast<long long>(fast::micro_batches(B)), blas_kernels(),
                wait_policy_description());
    const auto row = [&](const char* condition, const std::vector<double>& a, const std::vector<double>& b,
                         const std::vector<int>& used) {
        const int fewest = *std::min_element(used.begin(), used.end()), most = *std::max_element(used.begin(), used.end());
        const long on_asked = std::count(used.begin(), used.end(), threads);
        std::printf("bench: %s: median of %d repeats x %d steps: 1 thread %.2f ms per step, %d threads asked %.2f ms "
                    "(min %.2f / %.2f, max %.2f / %.2f); threads used %d to %d, all %d in %ld of %d repeats\n", condition,
                    repeats, steps, median(a), threads, median(b), *std::min_element(a.begin(), a.end()),
                    *std::min_element(b.begin(), b.end()), *std::max_element(a.begin(), a.end()),
                    *std::max_element(b.begin(), b.end()), fewest, most, threads, on_asked, repeats);
        return median(b) / median(a);
    };
    const double idle_ratio = row("as the machine is", idle_one, idle_many, idle_used);
    char busy_name[64];
    std::snprintf(busy_name, sizeof busy_name, "one core busy (a busy loop on CPU %d)", busy_cpu);
    const double busy_ratio = row(busy_name, busy_one, busy_many, busy_used);
    std::printf("bench: %d threads asked / 1 thread: %.2f as the machine is, %.2f with one core busy\n", threads,
                idle_ratio, busy_ratio);
    std::printf("bench: 1 thread, one core busy / as the machine is: %.2f\n", median(busy_one) / median(idle_one));
    return 0;
}

// train_position's step alone on `threads` threads asked for: the median over repeats of ms per step,
// in the format make bench-torch reads.
int train_step(int threads, int steps, int repeats, const Sizes& sizes) {
    Training run(sizes);
    std::vector<int> used;
    timed_steps(run, threads, 5);  // warm-up: first allocations, the threads started
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) ms.push_back(timed_steps(run, threads, steps, &used));
    std::printf("bench: lag rope, B=%lld T=%lld D=%lld, %lld layers, fast kernels, %lld micro-batches a step, OpenBLAS %s "
                "kernels, waiting threads: %s\n",
                static_cast<long long>(sizes.batch), static_cast<long long>(sizes.length), static_cast<long long>(sizes.dim),
                static_cast<long long>(sizes.layers), static_cast<long long>(fast::micro_batches(sizes.batch)), blas_kernels(),
                wait_policy_description());
    std::printf("bench: OpenBLAS %s kernels: %s\n", blas_kernels(), blas_kernels_origin().c_str());
    std::printf("bench: train_position's step, %d threads asked (used %d to %d): median of %d repeats x %d steps: %.2f ms "
                "per step (min %.2f, max %.2f)\n", threads, *std::min_element(used.begin(), used.end()),
                *std::max_element(used.begin(), used.end()), repeats, steps, median(ms),
                *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()));
    return 0;
}

}  // namespace wai::bench
