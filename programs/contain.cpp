// contain: runs a learner's exercise program so that nothing in it can outlive its time limit, flood
// the terminal or the disk, or forge the checker's verdict (make exercise, make exercises,
// make exercise-train and the exercises' self-test run every learner's program through it).
//   contain [--verdict FILE] [--output-bytes N] SECONDS PROGRAM [ARGUMENTS...]
// - Time: at SECONDS the program and every process it started get SIGKILL, which no code can
//   ignore or block; the exit status is then 124, as timeout's.
// - Processes: this program is their subreaper (prctl PR_SET_CHILD_SUBREAPER), so a process the
//   learner's code started stays its descendant even after its parent ends or it leaves the process
//   group or the session (setpgid, setsid, a daemon's double fork). When the program ends, or at the
//   limit, every descendant still running is killed, found through /proc alone (no procps), and one
//   line on standard error says how many were left.
// - Output: the program's standard output and error, both through one pipe, are passed on to
//   standard output up to N bytes (default 1 MiB, far above any checker's report); past that they are
//   read and dropped, and one line says where the cut was; the checker's verdict (below) is then
//   printed again at the end, since its own line was among what was dropped.
// - Verdict: with --verdict, the program finds a pipe's descriptor in WAI_VERDICT_FD, and whatever
//   the checker writes there (its verdict line, exercise.hpp) is written to FILE at the end, empty when
//   nothing came. What the learner's code prints reaches only the output, so a printed "solved" line
//   is never a verdict.
// Exit status: the program's own; 128 + N when a signal N ended it; 124 at the time limit; 125 for
// this program's own usage errors, 127 when PROGRAM cannot be started.
// Leaves out the memory limit (the callers set ulimit -v) and code that attacks the checker from
// inside its own process: the learner's code is linked into it, so it can do what the checker can.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {

volatile sig_atomic_t interrupted = 0;  // SIGINT or SIGTERM to contain itself (make stopped)
void on_signal(int signal) { interrupted = signal; }

double now_seconds() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The parent pid and state of process `pid` from /proc/PID/stat ("PID (NAME) STATE PPID ..."; the
// name may hold spaces and ')', so the fields are read after the last ')'). False once it has gone.
bool read_stat(pid_t pid, pid_t& parent, char& state) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(file, line)) return false;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return false;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) return false;
    parent = static_cast<pid_t>(ppid);
    return true;
}

// Every live (not yet zombie) descendant of this process, by walking parent links through /proc.
std::set<pid_t> live_descendants() {
    std::vector<std::pair<pid_t, pid_t>> links;  // (pid, parent)
    std::set<pid_t> zombies;
    if (DIR* proc = opendir("/proc")) {
        while (dirent* entry = readdir(proc)) {
            char* end = nullptr;
            const long pid = std::strtol(entry->d_name, &end, 10);
            if (pid <= 0 || *end != '\0') continue;
            pid_t parent = 0;
            char state = '?';
            if (!read_stat(static_cast<pid_t>(pid), parent, state)) continue;
            links.emplace_back(static_cast<pid_t>(pid), parent);
            if (state == 'Z' || state == 'X') zombies.insert(static_cast<pid_t>(pid));
        }
        closedir(proc);
    }
    std::set<pid_t> family{getpid()};
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [pid, parent] : links)
            if (family.count(parent) && family.insert(pid).second) grew = true;
    }
    family.erase(getpid());
    for (pid_t z : zombies) family.erase(z);
    return family;
}

void reap_all() {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
}

// Kills every descendant until none is left (one forking while it is killed is found next round).
void kill_descendants() {
    for (int round = 0; round < 10000; ++round) {
        const std::set<pid_t> left = live_descendants();
        if (left.empty()) break;
        for (pid_t pid : left) kill(pid, SIGKILL);
        usleep(2000);
        reap_all();
    }
    reap_all();
}

bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

int usage(const std::string& why) {
    std::fprintf(stderr,
                 "contain: %s\nusage: contain [--verdict FILE] [--output-bytes N] SECONDS PROGRAM [ARGUMENTS...] "
                 "(SECONDS and N whole numbers above 0)\n",
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

}  // namespace

int main(int argc, char** argv) {
    std::string verdict_file;
    long long output_bytes = 1 << 20;
    int i = 1;
    for (; i < argc && std::strncmp(argv[i], "--", 2) == 0; i += 2) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) return usage(flag + " needs a value");
        if (flag == "--verdict")
            verdict_file = argv[i + 1];
        else if (flag == "--output-bytes") {
            output_bytes = whole_number(argv[i + 1], 1LL << 40);
            if (output_bytes == 0) return usage("--output-bytes: '" + std::string(argv[i + 1]) + "' is not a whole number above 0");
        } else
            return usage("unknown flag '" + flag + "'");
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
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    signal(SIGPIPE, SIG_IGN);

    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "contain: cannot start %s (%s)\n", program[0], std::strerror(errno));
        return 125;
    }
    if (child == 0) {
        setpgid(0, 0);  // a group of its own, so a terminal's ^C reaches contain, which stops it all
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        dup2(output[1], STDOUT_FILENO);
        dup2(output[1], STDERR_FILENO);
        if (verdict[1] >= 0) {
            const int fd = fcntl(verdict[1], F_DUPFD, 10);  // without close-on-exec
            setenv("WAI_VERDICT_FD", std::to_string(fd).c_str(), 1);
        } else {
            unsetenv("WAI_VERDICT_FD");
        }
        execvp(program[0], program);
        std::fprintf(stderr, "contain: cannot start %s (%s)\n", program[0], std::strerror(errno));
        _exit(127);
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
    std::set<pid_t> left;

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
            } else if (verdict_text.size() < 4096) {
                verdict_text.append(buffer, static_cast<size_t>(n));
            }
        }
        return true;
    };

    while (!ended) {
        if (interrupted) {
            kill_descendants();
            return 128 + interrupted;
        }
        if (now_seconds() >= deadline) {
            timed_out = true;
            left = live_descendants();
            left.erase(child);
            kill_descendants();
            waitpid(child, &status, 0);
            break;
        }
        if (output_open || verdict_open)
            read_pipes(50);
        else
            usleep(20000);
        if (waitpid(child, &status, WNOHANG) == child) ended = true;
    }
    if (!timed_out) {
        left = live_descendants();
        // What the program wrote before it ended is in the pipes: passed on before the kills, which
        // could otherwise cut a report short when a process it left holds the pipe too.
        const double settle_until = now_seconds() + 1;  // a process left writing without end is not waited for
        while ((output_open || verdict_open) && now_seconds() < settle_until && read_pipes(0)) {
        }
        kill_descendants();
    }
    // Every descendant is gone, so the pipes are at their ends: the rest of the output and the verdict.
    const double drain_until = now_seconds() + 5;
    while ((output_open || verdict_open) && now_seconds() < drain_until) read_pipes(100);
    // Past the cut the checker's own verdict line was dropped with the rest: said again, from the verdict.
    if (cut && !verdict_text.empty()) write_all(STDOUT_FILENO, verdict_text.data(), verdict_text.size());
    if (!left.empty())
        std::fprintf(stderr, "%s: your code left %zu process(es) running after the program ended (a fork, perhaps); they were stopped\n",
                     name.c_str(), left.size());
    if (!verdict_file.empty()) {
        std::ofstream out(verdict_file, std::ios::trunc);
        out << verdict_text;
        if (!out) {
            std::fprintf(stderr, "contain: cannot write the verdict to %s\n", verdict_file.c_str());
            return 125;
        }
    }
    if (timed_out) return 124;
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
