// What every exercise's training run shares: the chapter's experiment run twice with one seed, once
// with the library's scheme and once with the learner's code in its place (RunConfig::custom_position),
// and the two result lines printed one above the other. With the same seed, a right implementation
// gives the same line.
//   build/exercises/train_NAME TASK SEED STEPS [SECONDS]     (make exercise-train EXERCISE=NAME TASK=lag)
// Each run prints its progress every 500 steps, and has SECONDS of its own (make's
// EXERCISE_TRAIN_SECONDS; none when not given): a run still going then stops at its next step and
// says which it was, where it was and how to shorten it. A step that never returns (the learner's
// code loops or waits, SIGTERM ignored or not) never reaches that check, which runs between steps: in
// the learner's run a watch thread ends the program once the run is run_grace_seconds past its limit,
// saying in which step it was (and likewise for the testing after the last step). (make's hard limit
// around the program, two runs' time and a minute, is left for code that stops the watch itself.)
// Exit status: 0 for the same line, 1 for different lines, 10 when the code is not written yet,
// 2 for bad arguments, 3 for a run out of its time. Leaves out checking the code itself: make
// exercise EXERCISE=NAME does that.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <exception>
#include <string>
#include <thread>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/marked_place.hpp"
#include "tensor/number_text.hpp"
#include "tasks/experiment.hpp"
#include "tasks/run_checks.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"
#include "tasks/result_line.hpp"

namespace exercise {

// Throws, naming the learner's function, unless what it returned has the shape expected.
inline void require_shape(const char* function, const wai::Tensor& got, const wai::Shape& expected) {
    if (got.shape() != expected)
        throw std::invalid_argument(std::string(function) + " returned shape " + got.shape().str() + " where " +
                                    expected.str() + " was expected");
}

// Throws, naming the learner's function and the place, when what it returned for an input of finite
// numbers holds NaN or infinity: training would carry it on and end blaming the learning rate.
inline void require_finite(const char* function, const wai::Tensor& input, const wai::Tensor& got) {
    for (int64_t i = 0; i < input.numel(); ++i)
        if (!std::isfinite(input.data()[i])) return;
    for (int64_t i = 0; i < got.numel(); ++i)
        if (!std::isfinite(got.data()[i]))
            throw std::invalid_argument(std::string(function) + " returned " + number(got.data()[i]) + " at " +
                                        index_in(got.shape(), i) + " of its " + got.shape().str() +
                                        " result, from an input of finite numbers");
}

// f (a learner's function of one (T, H) block) on every (T, H) slice of x (..., T, H).
inline wai::Tensor on_each_slice(const wai::Tensor& x, const char* function,
                                 const std::function<wai::Tensor(const wai::Tensor&)>& f) {
    const wai::Shape block{x.shape()[x.rank() - 2], x.shape().last()};
    wai::Tensor out(x.shape());
    for (int64_t start = 0; start < x.numel(); start += block.numel()) {
        wai::Tensor slice(block);
        std::copy_n(x.data() + start, block.numel(), slice.data());
        const wai::Tensor result = f(slice);
        require_shape(function, result, block);
        require_finite(function, slice, result);
        std::copy_n(result.data(), block.numel(), out.data() + start);
    }
    return out;
}

// An op on x (..., T, H) whose forward and backward each apply a function of one (T, H) block to
// every slice: how a learner's rotation or its backward takes part in the model's attention.
inline wai::Value slice_op(const char* name, const wai::Value& x, const char* function,
                           const std::function<wai::Tensor(const wai::Tensor&)>& forward,
                           const std::function<wai::Tensor(const wai::Tensor&)>& backward) {
    return learner_op(
        name, {x}, [=](const std::vector<wai::Tensor>& in) { return on_each_slice(in[0], function, forward); },
        [=](const std::vector<wai::Tensor>&, const wai::Tensor&, const wai::Tensor& grad) {
            return std::vector<wai::Tensor>{on_each_slice(grad, function, backward)};
        });
}

// A run still going when its time was up: which, where, and after how long.
struct OutOfTime {
    std::string which;
    int64_t step = 0, steps = 0;
    double seconds = 0;
};

// How long past its limit the learner's run may go before its watch ends it: time for a step that is
// merely slow to reach the check between steps, which then says the run was slow.
constexpr double run_grace_seconds = 10;

// A run's steps and its testing after them, as its progress reports them: when its last step ended,
// and, for the learner's run under a limit (`watched`), a watch. Should that run still be in its steps
// run_grace_seconds past `limit`, or still testing the trained model that long past the larger of
// `limit` and twice `library_testing` (the library's own testing time: the check between steps does
// not reach the testing, and a learner's code may hang there alone, on the longer sequences), a thread
// of its own says in one line where the run was and ends the program with exit status 3, as that check
// does. It writes with write(2) alone and takes no lock the run's thread may hold (stdout's), since
// that thread is stuck in the learner's code. The library's run is never watched: its code returns.
class RunWatch {
public:
    RunWatch(const char* name, int64_t steps, double limit, double library_testing, bool watched)
        : name_(name), steps_(steps), limit_(limit), library_testing_(library_testing) {
        if (watched && limit_ > 0) thread_ = std::thread([this] { watch(); });
    }
    ~RunWatch() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        changed_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    RunWatch(const RunWatch&) = delete;
    RunWatch& operator=(const RunWatch&) = delete;

    // The run has finished `step`; after the last one it is testing the model.
    void reached(int64_t step) {
        step_.store(step);
        if (step < steps_) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            testing_since_ = std::chrono::steady_clock::now();
            testing_ = true;
        }
        changed_.notify_all();
    }
    // Seconds since the last step ended (the testing's time, once the run is over).
    double testing_seconds() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return testing_ ? seconds_since(testing_since_) : 0;
    }

private:
    static double seconds_since(std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    static std::chrono::steady_clock::time_point after(std::chrono::steady_clock::time_point t, double seconds) {
        return t + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    }

    void watch() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (changed_.wait_until(lock, after(start_, limit_ + run_grace_seconds), [this] { return done_ || testing_; })) {
            if (done_) return;
            const double allowed = std::max(limit_, 2 * library_testing_);
            if (changed_.wait_until(lock, after(testing_since_, allowed + run_grace_seconds), [this] { return done_; })) return;
        }
        char text[1024];
        if (!testing_)
            std::snprintf(text, sizeof text,
                          "exercise-train %s: your run was still in step %lld of %lld after %.0f s, past each run's limit "
                          "(EXERCISE_TRAIN_SECONDS=%.0f) and %.0f s more: your code has not returned (a loop that never "
                          "ends, or a wait, perhaps), so the run was stopped there\n",
                          name_, static_cast<long long>(step_.load()) + 1, static_cast<long long>(steps_), seconds_since(start_),
                          limit_, run_grace_seconds);
        else
            std::snprintf(text, sizeof text,
                          "exercise-train %s: your run was still testing the trained model %.0f s after its last step, "
                          "where the library's took %.0f s (past each run's limit, EXERCISE_TRAIN_SECONDS=%.0f, or twice "
                          "the library's time if longer, and %.0f s more): your code has not returned (a loop that never "
                          "ends on the longer sequences, or a wait, perhaps), so the run was stopped there\n",
                          name_, seconds_since(testing_since_), library_testing_, limit_, run_grace_seconds);
        for (size_t done = 0, size = std::strlen(text); done < size;) {
            const ssize_t n = write(STDOUT_FILENO, text + done, size - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        _exit(3);
    }

    const char* name_;
    int64_t steps_;
    double limit_, library_testing_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::atomic<int64_t> step_{0};
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool done_ = false, testing_ = false;
    std::chrono::steady_clock::time_point testing_since_;
    std::thread thread_;  // last: it starts once everything above is set
};

// What a run reports after each step: every 500 steps a progress line, and OutOfTime thrown once the
// run is past `limit` seconds (0: no limit); the step to its watch.
inline wai::ProgressFunction progress_of(const std::string& which, double limit, RunWatch& watch) {
    const auto start = std::chrono::steady_clock::now();
    return [=, &watch](int64_t step, int64_t steps, double loss) {
        watch.reached(step);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (limit > 0 && seconds > limit && step < steps) throw OutOfTime{which, step, steps, seconds};
        if (step % 500 == 0 && step < steps) {
            std::printf("  %s: step %lld of %lld, loss %.4f, %.0f s\n", which.c_str(), static_cast<long long>(step),
                        static_cast<long long>(steps), loss, seconds);
            std::fflush(stdout);
        }
    };
}

inline int train_with_yours(int argc, char** argv, const char* name, const char* scheme,
                            const decltype(wai::RunConfig::custom_position)& yours) {
    wai::prepare_process(argv);  // may start the program again (startup/openblas_startup.hpp): the channel after it
    take_verdict_channel();
    stop_at_file_limit();
    wai::RunConfig config;
    config.scheme = scheme;
    double limit = 0;  // seconds for each run, 0 for none
    try {
        if (argc != 4 && argc != 5)
            throw std::invalid_argument("expected TASK SEED STEPS [SECONDS], got " + std::to_string(argc - 1) + " arguments");
        if (argc == 5) {
            limit = static_cast<double>(wai::parse_integer(argv[4], "SECONDS"));
            if (limit < 1) throw std::invalid_argument("SECONDS must be 1 or more, got '" + std::string(argv[4]) + "'");
        }
        config.task = argv[1];
        // As train_position reads them: a number past 64 bits is refused with the range, not the type's.
        const std::string seed_range = "SEED must be an integer from 0 to 9223372036854775807, got '" + std::string(argv[2]) + "'";
        int64_t seed = 0;
        try {
            seed = wai::parse_integer(argv[2], "SEED");
        } catch (const wai::NumberPastRange&) {
            throw std::invalid_argument(seed_range);
        }
        if (seed < 0) throw std::invalid_argument(seed_range);
        config.seed = static_cast<uint64_t>(seed);
        try {
            config.steps = wai::parse_integer(argv[3], "STEPS");
        } catch (const wai::NumberPastRange&) {
            throw std::invalid_argument(wai::size_refusal("--steps", argv[3]));
        }
        wai::validate(config);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "exercise-train %s: %s (make exercise-train EXERCISE=%s TASK=lag|seen SEED=0 STEPS=2000)\n",
                     name, wai::one_line(e.what()).c_str(), name);
        return 2;
    }
    std::printf("exercise-train %s: %s %s, seed %llu, %lld steps: the library's %s, then yours\n", name,
                config.task.c_str(), scheme, static_cast<unsigned long long>(config.seed),
                static_cast<long long>(config.steps), scheme);
    std::fflush(stdout);
    arm_verdict_guard(std::string("exercise-train ") + name + ": your code ended the program before the checker could judge it "
                      "(an exit() or quick_exit() in your code)");
    double library_training = 0;  // the library's steps alone, its testing left out: what the learner's limit measures
    try {
        // Your code once, one training step of its own model, before the library's run: an unwritten
        // marked place, an error at the first step or a step that never returns (its watch, as your
        // run's) is said now, not after minutes of the library's.
        {
            RunWatch watch(name, config.steps, limit, 0, true);
            wai::RunConfig first = config;
            first.custom_position = yours;
            const std::unique_ptr<wai::Transformer> model = wai::make_model(first);
            wai::TrainingState state(*model, first);
            wai::training_step(*model, state.optimizer, state.task, state.data, first);
        }
        const auto library_start = std::chrono::steady_clock::now();
        std::string library;
        double library_testing = 0;
        {
            RunWatch watch(name, config.steps, limit, 0, false);
            library = wai::format_result_line(config, wai::run_experiment(config, progress_of("library", limit, watch)));
            library_testing = watch.testing_seconds();
        }
        library_training = std::chrono::duration<double>(std::chrono::steady_clock::now() - library_start).count() - library_testing;
        std::printf("  library: %s\n", library.c_str());
        std::fflush(stdout);
        config.custom_position = yours;
        std::string learner;
        try {
            RunWatch watch(name, config.steps, limit, library_testing, true);
            learner = wai::format_result_line(config, wai::run_experiment(config, progress_of("yours", limit, watch)));
        } catch (const wai::Diverged& e) {
            // The library's run had the same settings and stayed finite: the learning rate is not the cause.
            throw std::runtime_error(e.where + ", where the library's run with the same settings and seed stayed finite: "
                                     "your code gives numbers the model cannot train on (too large, or NaN); make exercise "
                                     "EXERCISE=" + std::string(name) + " checks them");
        }
        std::printf("  yours:   %s\n", learner.c_str());
        verdict_reached();
        if (learner == library) {
            say_verdict(std::string("exercise-train ") + name + ": the same line: your code trains the chapter's model as the library's does");
            return 0;
        }
        say_verdict(std::string("exercise-train ") + name + ": the lines differ; make exercise EXERCISE=" + name +
                    " says where your code differs");
        return 1;
    } catch (const OutOfTime& out) {
        verdict_reached();
        const auto whole = [](double x) { return std::to_string(static_cast<long long>(std::lround(x))); };
        const std::string where = " was at step " + std::to_string(out.step) + " of " + std::to_string(out.steps) + " after " +
                                  whole(out.seconds) + " s, each run's limit (EXERCISE_TRAIN_SECONDS=" + whole(limit) + ")";
        // Fewer steps only while there are more than 300 (the lines still say something at 300).
        const std::string longer = "EXERCISE_TRAIN_SECONDS=" + whole(2 * limit) + " gives each twice the time";
        const std::string shorter = out.steps > 300 ? "STEPS=300 shortens both runs (the line is then the library's at 300 steps), or " + longer
                                                    : longer;
        if (out.which == "library")
            std::printf("exercise-train %s: the library's run, before yours,%s: this machine is slower than the limit "
                        "allows for; %s\n", name, where.c_str(), shorter.c_str());
        else
            std::printf("exercise-train %s: your run%s, where the library's %lld steps took %.1f s: your code "
                        "is that much slower (or loops); %s\n",
                        name, where.c_str(), static_cast<long long>(out.steps), library_training, shorter.c_str());
        return 3;
    } catch (const NotWrittenYet&) {
        verdict_reached();
        say_verdict(std::string("exercise-train ") + name + ": your code is not written yet (make exercise EXERCISE=" + name + ")");
        return 10;
    } catch (const std::exception& e) {
        verdict_reached();
        say_verdict(std::string("exercise-train ") + name + ": your code stopped with an error: " + e.what());
        return 1;
    } catch (...) {
        verdict_reached();
        say_verdict(std::string("exercise-train ") + name + ": your code stopped with an error: " + not_a_std_exception());
        return 1;
    }
}

}  // namespace exercise
