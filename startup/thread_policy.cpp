// The thread count from the cores found free, and the wait policy of OpenMP's threads, set in the
// environment before the program starts again.
// Leaves out the re-exec itself (openblas_startup.cpp).
#include "startup/thread_policy.hpp"

#include <sched.h>
#include <strings.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace wai {

bool choose_wait_policy() {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return false;
    return setenv("GOMP_SPINCOUNT", chosen_spin_count, 1) == 0;
}

namespace {

// Busy and total jiffies of each CPU in `cpus`, from the text of /proc/stat; empty if unreadable.
struct CpuTimes {
    long long busy = 0, total = 0;
};
std::vector<CpuTimes> cpu_times(const std::string& stat, const cpu_set_t& cpus) {
    std::istringstream in(stat);
    std::vector<CpuTimes> times;
    for (std::string line; std::getline(in, line);) {
        if (line.compare(0, 3, "cpu") != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
        std::istringstream fields(line.substr(3));
        int cpu = -1;
        long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
        if (!(fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)) return {};
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &cpus)) continue;
        const long long busy = user + nice + system + irq + softirq + steal;
        times.push_back({busy, busy + idle + iowait});
    }
    return times;
}

std::string read_proc_stat() {
    std::ifstream in("/proc/stat");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

int threads_for_free_cores(int asked, const std::string& stat_before, const std::string& stat_after, const cpu_set_t& cpus) {
    const std::vector<CpuTimes> before = cpu_times(stat_before, cpus), after = cpu_times(stat_after, cpus);
    if (before.empty() || before.size() != after.size()) return asked;
    double busy_cores = 0;
    for (size_t c = 0; c < before.size(); ++c) {
        const long long total = after[c].total - before[c].total;
        if (total > 0) busy_cores += static_cast<double>(after[c].busy - before[c].busy) / static_cast<double>(total);
    }
    const long free_cores = std::lround(static_cast<double>(before.size()) - busy_cores);
    return static_cast<int>(std::max(1L, std::min<long>(asked, free_cores)));
}

int threads_for_free_cores(int asked) {
    if (asked <= 1) return asked;
    if (const char* dynamic = std::getenv("OMP_DYNAMIC"); dynamic != nullptr && strcasecmp(dynamic, "false") == 0)
        return asked;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) return asked;
    const std::string before = read_proc_stat();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return threads_for_free_cores(asked, before, read_proc_stat(), cpus);
}

const char* wait_policy_description() {
    static const std::string text = [] {
        std::string t;
        for (const char* name : {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"})
            if (const char* value = std::getenv(name)) t += (t.empty() ? "" : ", ") + std::string(name) + "=" + value;
        return t.empty() ? std::string("libgomp's default") : t;
    }();
    return text.c_str();
}

}  // namespace wai
