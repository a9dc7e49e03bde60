// contain: runs a learner's exercise program so that nothing in it can outlive its time limit, flood
// the terminal or the disk, change the build that later runs judge, or forge the checker's verdict
// (make exercise, make exercises, make exercise-train and the exercises' self-test run every
// learner's program through it).
//   contain [--verdict FILE] [--output-bytes N] [--file-bytes N] [--read-only DIR]... [--subreaper]
//           SECONDS PROGRAM [ARGUMENTS...]
//   contain [--read-only DIR]... [--subreaper] --mode
//                      prints how it would contain a program here: "pid namespace" or "subreaper"
//   (--subreaper: the second way even where the first is allowed, as the tests hold both)
// - Processes: where the kernel allows it (root, or a user namespace of the user's own), the program
//   runs in a PID namespace of its own, under a small init that waits for it: nothing in it can see
//   or signal anything outside (a kill of its parent, SIGSTOP included, reaches only that init, which
//   ignores it), and when the init ends, the kernel kills every process left in the namespace, however
//   it forked (setsid, a daemon's double fork, a process that forks and ends in a loop). Elsewhere (a
//   chroot, a container without namespaces) this program is the subreaper of everything the program
//   starts (prctl PR_SET_CHILD_SUBREAPER) and kills its descendants, found through /proc alone (no
//   procps), round after round until it has no child at all; the program dies with it (parent-death
//   signal) if its code kills it. Either way one line on standard error says how many were left.
// - The build: in the PID namespace's mode the program also runs in a mount namespace of its own,
//   where each --read-only DIR (make's goals give the checkout and the build folders) and everything
//   mounted below it is read-only, and /proc shows the namespace's processes alone; and it holds no
//   capability, in either mode, and gains none from a set-user-ID program. So nothing it does changes
//   the checker program, its objects or the library a later run links and trusts (a script renamed
//   over the checker, say), not even through another process's /proc entry; /tmp and every other
//   folder stay as writable as they were. That mode is chosen only where all of it works (tried
//   first in a child). The subreaper mode cannot do this: there DIR stays writable, so make's goals
//   link the checker program again before each run (exercises.mk), which undoes a program put in its
//   place, but not an object file or the library changed under it.
// - Time: at SECONDS the program and every process it started get SIGKILL, which no code can
//   ignore or block; the exit status is then 124, as timeout's.
// - Files: no file the program writes grows past --file-bytes N (default 64 MiB; RLIMIT_FSIZE): a
//   write past it ends the program with SIGXFSZ (exit status 153), so a loop that writes without end
//   fills no disk.
// - Output: the program's standard output and error, both through one pipe, are passed on to
//   standard output up to --output-bytes N (default 1 MiB, far above any checker's report); past that
//   they are read and dropped, and one line says where the cut was; the checker's verdict (below) is
//   then printed again at the end, since its own line was among what was dropped.
// - Verdict: with --verdict, the program finds a pipe's descriptor in WAI_VERDICT_FD and a random
//   token in WAI_VERDICT_TOKEN; the lines the checker writes there beginning with the token (its
//   verdict line, exercise.hpp) are written to FILE without it at the end, and nothing else: what the
//   learner's code prints, or writes to every descriptor it can, is never a verdict.
// Exit status: the program's own; 128 + N when a signal N ended it; 124 at the time limit; 125 for
// this program's own usage errors, 127 when PROGRAM cannot be started.
// Leaves out the memory limit (the callers set ulimit -v) and code that attacks the checker from
// inside its own process, reading the token from the environment before the checker takes it: the
// learner's code is linked into the checker, so it can do what the checker can. In the subreaper
// mode, code that stops this program (SIGSTOP to its parent) stops the run with it.
// The parts: containment/processes.hpp (finding and killing the program's processes, the PID
// namespace), containment/folders.hpp (the read-only folders, the capabilities dropped) and
// containment/verdict.hpp (the token); this file holds the flags, the limits and the run.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "containment/folders.hpp"
#include "containment/processes.hpp"
#include "containment/verdict.hpp"
#include "containment/write_all.hpp"

using namespace contain;

namespace {

volatile sig_atomic_t interrupted = 0;  // SIGINT or SIGTERM to contain itself (make stopped)
void on_signal(int signal) { interrupted = signal; }

double now_seconds() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

int usage(const std::string& why) {
    std::fprintf(stderr,
                 "contain: %s\nusage: contain [--verdict FILE] [--output-bytes N] [--file-bytes N] [--read-only DIR]... [--subreaper] "
                 "SECONDS PROGRAM [ARGUMENTS...] (SECONDS and N whole numbers above 0), or contain [--read-only DIR]... "
                 "[--subreaper] --mode\n",
                 why.c_str());
    return 125;
}

// A whole number from 1 to `most`, or 0 when `text` is not one.
long long whole_number(const char* text, long long most) {
    if (*text < '1' || *text > '9') return 0;
    long long value = 0;
    for (const char* c = text; *c; ++c) {
        if (*c < '0' || *c > '9') return 0;
        value = value * 10 + (*c - '0');
        if (value > most) return 0;
    }
    return value;
}

// 128 + the signal for a status that ended by one, else the exit status.
int status_code(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

void say_left(const std::string& name, size_t left) {
    if (left > 0)
        std::fprintf(stderr, "%s: your code left %zu process(es) running after the program ended (a fork, perhaps); they were stopped\n",
                     name.c_str(), left);
}

}  // namespace

int main(int argc, char** argv) {
    std::string verdict_file;
    long long output_bytes = 1 << 20;
    long long file_bytes = 64LL << 20;
    std::vector<std::string> read_only;
    bool subreaper_only = false, mode_only = false;
    int i = 1;
    for (; i < argc && std::strncmp(argv[i], "--", 2) == 0; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--subreaper" || flag == "--mode") {
            (flag == "--mode" ? mode_only : subreaper_only) = true;
            --i;
            continue;
        }
        if (i + 1 >= argc) return usage(flag + " needs a value");
        if (flag == "--verdict")
            verdict_file = argv[i + 1];
        else if (flag == "--output-bytes" || flag == "--file-bytes") {
            long long& bytes = flag == "--output-bytes" ? output_bytes : file_bytes;
            bytes = whole_number(argv[i + 1], 1LL << 50);
            if (bytes == 0) return usage(flag + ": '" + std::string(argv[i + 1]) + "' is not a whole number from 1 to 2^50");
        } else if (flag == "--read-only") {
            // The folder's own path, every link followed: the one the mounts are listed under.
            char* real = realpath(argv[i + 1], nullptr);
            struct stat about {};
            const bool folder = real != nullptr && stat(real, &about) == 0 && S_ISDIR(about.st_mode);
            if (folder) read_only.push_back(real);
            std::free(real);
            if (!folder) return usage("--read-only: '" + std::string(argv[i + 1]) + "' is not a folder");
        } else
            return usage("unknown flag '" + flag + "'");
    }
    if (mode_only) {
        if (i < argc) return usage("--mode takes no SECONDS nor PROGRAM");
        std::printf("%s\n", !subreaper_only && namespaces_work(read_only) ? "pid namespace" : "subreaper");
        return 0;
    }
    if (argc - i < 2) return usage("expected SECONDS and PROGRAM");
    const long long seconds = whole_number(argv[i], 999999999);
    if (seconds == 0) return usage("SECONDS: '" + std::string(argv[i]) + "' is not a whole number from 1 to 999999999");
    char** program = argv + i + 1;
    std::string name = program[0];
    if (name.rfind('/') != std::string::npos) name = name.substr(name.rfind('/') + 1);

    // Processes orphaned below this one are re-parented to it, not to init: they stay findable.
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        std::fprintf(stderr, "contain: cannot become a subreaper (%s)\n", std::strerror(errno));
        return 125;
    }
    int output[2], verdict[2] = {-1, -1};
    if (pipe2(output, O_CLOEXEC) != 0 || (!verdict_file.empty() && pipe2(verdict, O_CLOEXEC) != 0)) {
        std::fprintf(stderr, "contain: cannot make a pipe (%s)\n", std::strerror(errno));
        return 125;
    }
    const std::string token = random_token();
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    signal(SIGPIPE, SIG_IGN);
    const pid_t contain_pid = getpid();
    const bool in_namespace = !subreaper_only && namespaces_work(read_only) && enter_pid_namespace();

    // The learner's program: its output to the pipe, the verdict's descriptor and token in its
    // environment, killed if this process dies (the subreaper mode: code that kills its parent), no
    // file past file_bytes, no capability.
    const auto start_program = [&]() {
        setpgid(0, 0);  // a group of its own, so a terminal's ^C reaches contain, which stops it all
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (!in_namespace && getppid() != contain_pid) _exit(125);  // contain ended before the signal was set
        rlimit file_limit{};
        getrlimit(RLIMIT_FSIZE, &file_limit);  // a lower limit given before (ulimit -f) is kept
        if (file_limit.rlim_max == RLIM_INFINITY || file_limit.rlim_max > static_cast<rlim_t>(file_bytes))
            file_limit.rlim_max = static_cast<rlim_t>(file_bytes);
        file_limit.rlim_cur = file_limit.rlim_max;
        if (setrlimit(RLIMIT_FSIZE, &file_limit) != 0) {
            std::fprintf(stderr, "contain: cannot limit the size of a file to %lld bytes (%s)\n", file_bytes, std::strerror(errno));
            _exit(125);
        }
        drop_capabilities();
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        dup2(output[1], STDOUT_FILENO);
        dup2(output[1], STDERR_FILENO);
        if (verdict[1] >= 0) {
            const int fd = fcntl(verdict[1], F_DUPFD, 10);  // without close-on-exec
            setenv("WAI_VERDICT_FD", std::to_string(fd).c_str(), 1);
            setenv("WAI_VERDICT_TOKEN", token.c_str(), 1);
        } else {
            unsetenv("WAI_VERDICT_FD");
            unsetenv("WAI_VERDICT_TOKEN");
        }
        execvp(program[0], program);
        std::fprintf(stderr, "contain: cannot start %s (%s)\n", program[0], std::strerror(errno));
        _exit(127);
    };

    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "contain: cannot start %s (%s)\n", program[0], std::strerror(errno));
        return 125;
    }
    if (child == 0) {
        if (!in_namespace) start_program();
        // The namespace's init (pid 1 there): starts the program, reaps what is orphaned to it, and when
        // the program ends says how many processes were left and ends with the program's status; the
        // kernel then kills every process left in the namespace. A signal from inside it (the program's
        // kill of its parent) reaches an init only through a handler, and it has none.
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        const std::string unmounted = contain_mounts(read_only);
        if (!unmounted.empty()) {
            std::fprintf(stderr, "contain: cannot set up the program's view of the folders: %s\n", unmounted.c_str());
            _exit(125);
        }
        const pid_t learner = fork();
        if (learner < 0) _exit(125);
        if (learner == 0) start_program();
        close(output[1]);
        if (verdict[1] >= 0) close(verdict[1]);
        int status = 0;
        for (;;) {
            int s = 0;
            const pid_t reaped = waitpid(-1, &s, 0);
            if (reaped == learner) {
                status = s;
                break;
            }
            if (reaped < 0 && errno != EINTR) _exit(125);
        }
        // Orphans are this init's children: a live one after the zombies are reaped means one was left,
        // though a scan of /proc can miss a process that forks and ends in a loop.
        size_t left = live_descendants().size();
        for (;;) {
            const pid_t reaped = waitpid(-1, nullptr, WNOHANG);
            if (reaped > 0) continue;
            if (reaped == 0) left = std::max<size_t>(left, 1);
            break;
        }
        say_left(name, left);
        _exit(status_code(status));
    }
    close(output[1]);
    if (verdict[1] >= 0) close(verdict[1]);

    const double deadline = now_seconds() + static_cast<double>(seconds);
    long long passed = 0;
    bool cut = false, timed_out = false, output_open = true, verdict_open = verdict[0] >= 0;
    int status = 0;
    bool ended = false;
    std::string verdict_text;
    char buffer[65536];
    size_t left = 0;

    const std::string cut_line = "\n" + name + ": your code printed more than " + std::to_string(output_bytes) +
                                 " bytes; the rest of what the program printed was not shown\n";
    // Waits up to timeout_ms for either pipe; passes on what came. False when nothing came.
    auto read_pipes = [&](int timeout_ms) {
        pollfd fds[2] = {{output_open ? output[0] : -1, POLLIN, 0}, {verdict_open ? verdict[0] : -1, POLLIN, 0}};
        if (poll(fds, 2, timeout_ms) <= 0) return false;
        if (fds[0].revents) {
            const ssize_t n = read(output[0], buffer, sizeof buffer);
            if (n <= 0) {
                if (n == 0 || errno != EINTR) output_open = false;
            } else {
                if (passed < output_bytes)
                    write_all(STDOUT_FILENO, buffer, static_cast<size_t>(std::min<long long>(n, output_bytes - passed)));
                passed += n;
                if (passed > output_bytes && !cut) {
                    cut = true;
                    write_all(STDOUT_FILENO, cut_line.data(), cut_line.size());
                }
            }
        }
        if (fds[1].revents) {
            const ssize_t n = read(verdict[0], buffer, sizeof buffer);
            if (n <= 0) {
                if (n == 0 || errno != EINTR) verdict_open = false;
            } else if (verdict_text.size() < 65536) {
                verdict_text.append(buffer, static_cast<size_t>(n));
            }
        }
        return true;
    };

    while (!ended) {
        if (interrupted) {
            kill_descendants(child);
            return 128 + interrupted;
        }
        if (now_seconds() >= deadline) {
            timed_out = true;
            // The program (and in the namespace mode its init) are not counted as left behind.
            const size_t running = live_descendants().size();
            const size_t own = in_namespace ? 2 : 1;
            left = running > own ? running - own : 0;
            kill(child, SIGKILL);  // in the namespace mode, the kernel then kills every process in it
            kill_descendants(child);
            break;
        }
        if (output_open || verdict_open)
            read_pipes(50);
        else
            usleep(20000);
        if (waitpid(child, &status, WNOHANG) == child) ended = true;
    }
    if (!timed_out) {
        // What the program wrote before it ended is in the pipes: passed on before the kills, which
        // could otherwise cut a report short when a process it left holds the pipe too.
        const double settle_until = now_seconds() + 1;  // a process left writing without end is not waited for
        while ((output_open || verdict_open) && now_seconds() < settle_until && read_pipes(0)) {
        }
        // In the namespace mode its init has said how many were left, and their namespace is gone.
        const size_t killed = kill_descendants(child).size();
        if (!in_namespace) left = killed;
    }
    // Every descendant is gone, so the pipes are at their ends: the rest of the output and the verdict.
    const double drain_until = now_seconds() + 5;
    while ((output_open || verdict_open) && now_seconds() < drain_until) read_pipes(100);
    const std::string verdict_said = verdict_lines(verdict_text, token);
    // Past the cut the checker's own verdict line was dropped with the rest: said again, from the verdict.
    if (cut && !verdict_said.empty()) write_all(STDOUT_FILENO, verdict_said.data(), verdict_said.size());
    say_left(name, left);
    if (!verdict_file.empty()) {
        std::ofstream out(verdict_file, std::ios::trunc);
        out << verdict_said;
        if (!out) {
            std::fprintf(stderr, "contain: cannot write the verdict to %s\n", verdict_file.c_str());
            return 125;
        }
    }
    if (timed_out) return 124;
    return status_code(status);
}
