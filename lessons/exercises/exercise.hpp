// What every exercise checker shares: the verdict (solved, not solved yet, wrong answer), the
// comparison that finds the first place a learner's tensor differs from the library's and names a
// known slip when the learner's numbers are what that slip gives, and a learner's backward wrapped
// as an op so gradcheck and a real training step can use it.
// A checker's verdict and exit status:
//   NAME: solved            0
//   NAME: not solved yet   10   (the marked place still calls exercise::not_written_yet())
//   NAME: wrong answer      1   (a comparison failed, the learner's code threw, even a non-std::exception,
//                                or ended the program with exit() before the verdict)
// With --brief it prints only its one verdict line (the progress board, make exercises, uses that).
// Run by make's exercise goals (through build/contain), the verdict line is also written, with a token
// only contain and the checker know, to the descriptor WAI_VERDICT_FD names, and only that counts: a
// line the learner's code prints, or writes to every descriptor it can, is output.
// Leaves out the exercises themselves: lessons/exercises/NAME.hpp and NAME.cpp, check/NAME.cpp.
#pragma once
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <new>
#include <string>
#include <vector>

#include <unistd.h>


#include "autograd/gradcheck.hpp"
#include "lessons/exercises/marked_place.hpp"
#include "tasks/experiment.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"
#include "tensor/tensor.hpp"

namespace exercise {

// A known slip: what a learner who made it would get for the same inputs, and the hint naming it.
struct Slip {
    std::string hint;
    wai::Tensor result;
};

// "(1, 3)" for flat index 7 of a (2, 4) tensor: the place in the tensor's own shape.
inline std::string index_in(const wai::Shape& shape, int64_t flat) {
    std::vector<int64_t> index(shape.rank());
    for (int axis = shape.rank() - 1; axis >= 0; --axis) {
        index[axis] = shape[axis] == 0 ? 0 : flat % shape[axis];
        flat = shape[axis] == 0 ? 0 : flat / shape[axis];
    }
    std::string text = "(";
    for (size_t i = 0; i < index.size(); ++i) text += (i ? ", " : "") + std::to_string(index[i]);
    return text + ")";
}

inline std::string number(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

inline bool close(double got, double expected, double tolerance) {
    return std::abs(got - expected) <= tolerance;  // NaN is never close
}

// The first index where got and expected are not close, or -1.
inline int64_t first_difference(const wai::Tensor& got, const wai::Tensor& expected, double tolerance) {
    for (int64_t i = 0; i < expected.numel(); ++i)
        if (!close(got.data()[i], expected.data()[i], tolerance)) return i;
    return -1;
}

// The checks of one exercise. The first failure is the verdict's reason; every check is listed in
// the full report as "[ok]" or "[WRONG]".
class Checker {
public:
    // got against expected, element by element, to `tolerance`. On the first difference, the report
    // names where (in got's shape), expected against got, how many differ, and the hint of the first
    // slip whose result got matches.
    bool compare(const std::string& what, const wai::Tensor& got, const wai::Tensor& expected, double tolerance,
                 const std::vector<Slip>& slips = {}) {
        if (!got.defined()) return wrong(what, "your code returned an undefined Tensor");
        if (got.shape() != expected.shape())
            return wrong(what, "your tensor has shape " + got.shape().str() + ", expected " + expected.shape().str(),
                         slip_hint(got, slips, tolerance));
        const int64_t first = first_difference(got, expected, tolerance);
        if (first < 0) return ok(what);
        int64_t count = 0;
        for (int64_t i = 0; i < expected.numel(); ++i)
            count += !close(got.data()[i], expected.data()[i], tolerance);
        return wrong(what,
                     "first differs at " + index_in(expected.shape(), first) + ": expected " +
                         number(expected.data()[first]) + ", got " + number(got.data()[first]) + " (" +
                         std::to_string(count) + " of " + std::to_string(expected.numel()) + " numbers differ)",
                     slip_hint(got, slips, tolerance));
    }

    // One number against its expected value; `slips` are (hint, what the slip gives) pairs.
    bool compare_number(const std::string& what, double got, double expected, double tolerance,
                        const std::vector<std::pair<std::string, double>>& slips = {}) {
        if (close(got, expected, tolerance)) return ok(what);
        std::string hint;
        for (const auto& [slip_hint_text, value] : slips)
            if (close(got, value, tolerance)) {
                hint = slip_hint_text;
                break;
            }
        return wrong(what, "expected " + number(expected) + ", got " + number(got), hint);
    }

    bool ok(const std::string& what) {
        lines_.push_back("  [ok] " + what);
        return true;
    }
    bool wrong(const std::string& what, const std::string& detail, const std::string& hint = "") {
        lines_.push_back("  [WRONG] " + what + ": " + detail);
        if (!hint.empty()) lines_.push_back("    hint: " + hint);
        if (reason_.empty()) reason_ = what + ": " + detail + (hint.empty() ? "" : "; hint: " + hint);
        return false;
    }
    void note(const std::string& text) { lines_.push_back("  " + text); }
    // What to do next when the code about to be called turns out not written yet (set before calling
    // each part, so the hint follows the learner's progress); the exercise's own hint otherwise.
    std::string next_hint;

    bool failed() const { return !reason_.empty(); }
    const std::string& reason() const { return reason_; }
    const std::vector<std::string>& lines() const { return lines_; }

private:
    static std::string slip_hint(const wai::Tensor& got, const std::vector<Slip>& slips, double tolerance) {
        for (const Slip& slip : slips)
            if (slip.result.defined() && slip.result.shape() == got.shape() && first_difference(got, slip.result, tolerance) < 0)
                return slip.hint;
        return "";
    }
    std::vector<std::string> lines_;
    std::string reason_;
};

// Said of an exception that is not a std::exception (a learner's `throw 42;`), with its value when
// it is a number or text: "an exception that is not a std::exception: 42". Called in a catch (...).
inline std::string not_a_std_exception() {
    const std::string said = "an exception that is not a std::exception";
    try {
        throw;
    } catch (const char* text) {
        return said + ": \"" + wai::one_line(text ? text : "(null)") + "\"";
    } catch (const std::string& text) {
        return said + ": \"" + wai::one_line(text) + "\"";
    } catch (bool value) {
        return said + ": " + (value ? "true" : "false");
    } catch (char value) {
        return said + ": '" + wai::one_line(std::string(1, value)) + "'";
    } catch (int value) {
        return said + ": " + std::to_string(value);
    } catch (long value) {
        return said + ": " + std::to_string(value);
    } catch (long long value) {
        return said + ": " + std::to_string(value);
    } catch (unsigned value) {
        return said + ": " + std::to_string(value);
    } catch (unsigned long value) {
        return said + ": " + std::to_string(value);
    } catch (unsigned long long value) {
        return said + ": " + std::to_string(value);
    } catch (double value) {
        return said + ": " + number(value);
    } catch (float value) {
        return said + ": " + number(value);
    } catch (...) {
        return said + " (of a type the checker cannot name)";
    }
}

// The verdict's guard: a learner's exit() or quick_exit() (of any status) before the checker has
// judged ends the program with `message` and exit status 1, rather than with a status that reads as
// a verdict (exit(0) would read as "solved"). Only in the process that armed it: a forked child's
// exit is its own. _exit() and signals pass it by (a signal's status is no verdict; make says so).
// Where the verdict goes besides standard output: the descriptor and token build/contain passes in
// WAI_VERDICT_FD and WAI_VERDICT_TOKEN (programs/contain.cpp), taken out of the environment when the
// checker starts, before any of the learner's code runs in it.
struct VerdictChannel {
    int fd = -1;
    std::string token;
};
inline VerdictChannel& verdict_channel() {
    static VerdictChannel channel;
    return channel;
}
// A file the learner's code writes past the size limit make's goals set (contain's --file-bytes) ends
// the program with SIGXFSZ, which make names in a sentence (checker_status.sh). The programs' start-up
// ignores that signal (startup/output_check.hpp), so that a write to standard output past `ulimit -f`
// fails with a line; but then the learner's writes past the limit would fail unseen, the loop that
// makes them running on. Under make, standard output is contain's pipe, which the limit never reaches.
inline void stop_at_file_limit() { std::signal(SIGXFSZ, SIG_DFL); }

inline void take_verdict_channel() {
    const char* fd_text = std::getenv("WAI_VERDICT_FD");
    const char* token = std::getenv("WAI_VERDICT_TOKEN");
    if (fd_text != nullptr && token != nullptr) verdict_channel() = {std::atoi(fd_text), token};
    unsetenv("WAI_VERDICT_FD");
    unsetenv("WAI_VERDICT_TOKEN");
}

// The verdict line: on standard output for the learner, and with the token to the verdict's
// descriptor, the one place make's exercise goals take a verdict from.
inline void say_verdict(const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    const VerdictChannel& channel = verdict_channel();
    if (channel.fd <= 2) return;
    const std::string text = channel.token + " " + line + "\n";
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = write(channel.fd, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
}

namespace guard {
inline pid_t armed_in = 0;
inline std::string message;
inline bool judged = false;
inline void on_exit() {
    if (judged || getpid() != armed_in) return;
    std::fflush(stdout);
    say_verdict(message);
    _exit(1);
}
}  // namespace guard
inline void arm_verdict_guard(const std::string& message) {
    guard::armed_in = getpid();
    guard::message = message;
    std::atexit(guard::on_exit);
    std::at_quick_exit(guard::on_exit);
}
inline void verdict_reached() { guard::judged = true; }

struct Exercise {
    const char* name;           // the file stem: lessons/exercises/NAME.cpp
    const char* title;          // what the learner builds, for the report's first line
    const char* not_yet_hint;   // what to do first, while the marked place is untouched
};

// main() of a checker: runs `check`, prints the report and the verdict, and returns the exit status.
inline int run(int argc, char** argv, const Exercise& e, const std::function<void(Checker&)>& check) {
    wai::prepare_process(argv);  // may start the program again (startup/openblas_startup.hpp): the channel after it
    take_verdict_channel();
    stop_at_file_limit();
    bool brief = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--brief" && !brief) {
            brief = true;
            continue;
        }
        std::fprintf(stderr, "%s: %s: the only one is --brief (one line: the verdict), at most once\n",
                     wai::one_line(argv[0]).c_str(),
                     brief && std::string(argv[i]) == "--brief"
                         ? "--brief is given twice"
                         : ("unknown argument '" + wai::one_line(argv[i]) + "'").c_str());
        return 2;
    }
    Checker checker;
    bool not_yet = false;
    std::string stopped;
    arm_verdict_guard(std::string(e.name) + ": wrong answer: your code ended the program before the checker could judge it "
                      "(an exit() or quick_exit() in your code)");
    try {
        check(checker);
    } catch (const NotWrittenYet&) {
        not_yet = true;
    } catch (const std::bad_alloc&) {  // make exercise runs it under a 4 GiB limit (exercises.mk)
        stopped = "std::bad_alloc: it ran out of memory (make exercise allows 4 GiB); the error does not say which "
                  "allocation: one too large, or a loop that only grows a vector, are two ways to get there";
    } catch (const std::exception& error) {
        stopped = error.what();
    } catch (...) {
        stopped = not_a_std_exception();
    }
    verdict_reached();
    if (!brief) {
        std::printf("exercise %s: %s (your code: lessons/exercises/%s.cpp)\n", e.name, e.title, e.name);
        for (const std::string& line : checker.lines()) std::printf("%s\n", line.c_str());
    }
    if (!stopped.empty() || checker.failed()) {
        const std::string why = !checker.failed() ? "your code stopped with an error: " + stopped : checker.reason();
        if (!brief && !stopped.empty()) std::printf("  [WRONG] your code stopped with an error: %s\n", stopped.c_str());
        say_verdict(std::string(e.name) + ": wrong answer: " + why);
        return 1;
    }
    if (not_yet) {
        say_verdict(std::string(e.name) + ": not solved yet: " + (checker.next_hint.empty() ? e.not_yet_hint : checker.next_hint));
        return 10;
    }
    say_verdict(std::string(e.name) + ": solved");
    return 0;
}

// A learner's backward as an op: forward computes the output from the inputs' values, backward
// returns each input's share from the inputs' values, the output and the incoming gradient (an
// undefined Tensor for an input that needs none). gradcheck and the training step use it.
using ForwardFunction = std::function<wai::Tensor(const std::vector<wai::Tensor>& inputs)>;
using BackwardFunction = std::function<std::vector<wai::Tensor>(const std::vector<wai::Tensor>& inputs,
                                                                const wai::Tensor& output, const wai::Tensor& grad)>;

struct LearnerOp final : wai::Op {
    BackwardFunction backward_function;
    explicit LearnerOp(BackwardFunction b) : backward_function(std::move(b)) {}
    void backward(wai::Node& out) override {
        std::vector<wai::Tensor> inputs;
        for (const wai::Value& p : out.parents) inputs.push_back(p.value());
        std::vector<wai::Tensor> shares = backward_function(inputs, out.value, out.grad);
        for (size_t i = 0; i < out.parents.size() && i < shares.size(); ++i)
            if (out.parents[i].requires_grad() && shares[i].defined()) out.parents[i].accumulate_grad(std::move(shares[i]));
    }
};

inline wai::Value learner_op(const char* name, const std::vector<wai::Value>& inputs, const ForwardFunction& forward,
                             const BackwardFunction& backward) {
    std::vector<wai::Tensor> values;
    for (const wai::Value& v : inputs) values.push_back(v.value());
    return wai::record(name, forward(values), inputs, std::make_unique<LearnerOp>(backward));
}

// Full-Jacobian gradcheck of `f` (built from a learner op) against central differences of its own
// forward, as the library's ops are checked (autograd/gradcheck.hpp, default tolerances).
inline bool gradcheck(Checker& checker, const std::string& what,
                      const std::function<wai::Value(const std::vector<wai::Value>&)>& f, const std::vector<wai::Value>& inputs) {
    const wai::GradcheckResult result = wai::gradcheck(f, inputs);
    if (result.passed)
        return checker.ok(what + " (" + std::to_string(result.entries) + " Jacobian entries against finite differences)");
    return checker.wrong(what, "your gradient disagrees with finite differences of the forward: " + result.worst);
}

// A short run of the chapter's experiment with `config`: the trained model, and its result.
inline std::unique_ptr<wai::Transformer> trained_model(const wai::RunConfig& config, wai::RunResult& result) {
    wai::validate(config);
    std::unique_ptr<wai::Transformer> model = wai::make_model(config);
    wai::train(*model, config, result);
    wai::test_model(*model, config, result);
    return model;
}

}  // namespace exercise
