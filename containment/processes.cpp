// The processes a contained program starts (containment/processes.hpp): /proc read by hand, and the
// PID namespace entered with unshare.
#include "containment/processes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "containment/write_all.hpp"

namespace contain {
namespace {

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

// This process's pid as /proc names it: in a PID namespace of its own getpid() answers the
// namespace's number (1 for its init), while /proc, mounted outside it, lists the machine's.
pid_t pid_in_proc() {
    char link[32] = {};
    const ssize_t n = readlink("/proc/self", link, sizeof link - 1);
    return n > 0 ? static_cast<pid_t>(std::atol(link)) : getpid();
}

// Writes `text` to the file at `path` (a /proc file the kernel reads in one write).
bool write_text(const std::string& path, const std::string& text) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write_all(fd, text.data(), text.size());
    close(fd);
    return ok;
}

}  // namespace

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
    const pid_t self = pid_in_proc();
    std::set<pid_t> family{self};
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [pid, parent] : links)
            if (family.count(parent) && family.insert(pid).second) grew = true;
    }
    family.erase(self);
    for (pid_t z : zombies) family.erase(z);
    return family;
}

// Kills every descendant and reaps it, round after round, until this process has no child at all
// (waitpid's ECHILD): a descendant whose parent was killed becomes its child (the subreaper), so one
// that forks and ends in a loop is caught on a later round, never missed by a /proc scan's timing.
// Returns the descendants it killed, except `spared` (the program itself).
std::set<pid_t> kill_descendants(pid_t spared) {
    std::set<pid_t> killed;
    for (;;) {
        for (pid_t pid : live_descendants()) {
            kill(pid, SIGKILL);
            if (pid != spared) killed.insert(pid);
        }
        bool children_left = false;
        for (;;) {
            const pid_t reaped = waitpid(-1, nullptr, WNOHANG);
            if (reaped > 0) continue;
            children_left = !(reaped < 0 && errno == ECHILD);
            break;
        }
        if (!children_left) return killed;
        usleep(1000);
    }
}

// Enters a PID namespace for the children this process starts next: as root directly, otherwise in a
// user namespace of its own with the same user and group inside. False where the kernel refuses (a
// chroot, a container's seccomp filter), and then nothing has changed.
bool enter_pid_namespace() {
    if (unshare(CLONE_NEWPID) == 0) return true;
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return false;
    const bool mapped = write_text("/proc/self/setgroups", "deny") &&
                        write_text("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") &&
                        write_text("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
    if (!mapped) {
        std::fprintf(stderr, "contain: cannot map the user into its own namespace (%s)\n", std::strerror(errno));
        std::exit(125);
    }
    return true;
}

}  // namespace contain
