// BusyCore: one core held busy by another process, for bench_step --scaling's "one core busy" rows
// (docs/performance.md, section 10). A child process spins on one CPU until the object is destroyed,
// which kills it by its pid; the child also dies with the benchmark (PR_SET_PDEATHSIG).
// Leaves out any work in the loop: it only takes the core, at the benchmark's own priority.
#pragma once
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace wai::bench {

// A child process that spins on one CPU until it is killed: one core busy with another program.
// It dies with the benchmark too (PR_SET_PDEATHSIG), so no spinning process outlives it.
class BusyCore {
public:
    // The last CPU this process may run on, or -1 when it may run on only one.
    static int spare_cpu() {
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return -1;
        int last = -1;
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &allowed)) last = c;
        return last;
    }
    explicit BusyCore(int cpu) : cpu_(cpu) {
        const pid_t parent = getpid();
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("could not start the busy-loop process (fork failed)");
        if (pid_ == 0) {  // the child: only async-signal-safe calls, then the loop
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0);
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu_, &one);
            sched_setaffinity(0, sizeof one, &one);
            for (;;) asm volatile("" ::: "memory");
        }
    }
    ~BusyCore() {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    BusyCore(const BusyCore&) = delete;
    BusyCore& operator=(const BusyCore&) = delete;
private:
    int cpu_;
    pid_t pid_ = -1;
};

}  // namespace wai::bench
