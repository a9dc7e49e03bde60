// What a contained program may change (containment/folders.hpp): mount, unshare and the capability
// calls, with /proc/self/mountinfo read by hand.
#include "containment/folders.hpp"

#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "containment/processes.hpp"

namespace contain {
namespace {

// A mount point's path as /proc/self/mountinfo writes it, each blank and backslash as \040 \011 \012
// \134, read back.
std::string unescaped(const std::string& text) {
    std::string plain;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size()) {
            plain += static_cast<char>(std::strtol(text.substr(i + 1, 3).c_str(), nullptr, 8));
            i += 3;
        } else {
            plain += text[i];
        }
    }
    return plain;
}

// The mount points at `dir` or below it, from /proc/self/mountinfo ("ID PARENT MAJOR:MINOR ROOT POINT ...").
std::vector<std::string> mounts_at_or_below(const std::string& dir) {
    std::ifstream info("/proc/self/mountinfo");
    std::vector<std::string> found;
    std::string line;
    while (std::getline(info, line)) {
        std::istringstream fields(line);
        std::string id, parent, device, root, point;
        if (!(fields >> id >> parent >> device >> root >> point)) continue;
        point = unescaped(point);
        if (dir == "/" || point == dir || point.rfind(dir + "/", 0) == 0) found.push_back(point);
    }
    return found;
}

// The flags of the mount at `path` that a read-only remount must keep: in a user namespace the kernel
// refuses (EPERM) a remount that would clear one the mount had (nosuid, nodev, noexec, the atime ones).
unsigned long kept_flags(const char* path) {
    struct statvfs about {};
    if (statvfs(path, &about) != 0) return 0;
    unsigned long flags = 0;
    if (about.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (about.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (about.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (about.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (about.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (about.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return flags;
}

}  // namespace

// Run by the PID namespace's init before it starts the program: a mount namespace of its own, where
// each of `dirs` and everything mounted below it is bound onto itself read-only, and a /proc of this
// PID namespace (the machine's would show the processes outside, and through /proc/PID/cwd or
// /proc/PID/root of one of the user's own, the folders as writable as they are there). Empty when
// done, else what failed.
std::string contain_mounts(const std::vector<std::string>& dirs) {
    const auto failed = [](const std::string& what) { return what + " (" + std::strerror(errno) + ")"; };
    if (unshare(CLONE_NEWNS) != 0) return failed("a mount namespace");
    // Private: nothing mounted here reaches the machine's namespace, as it would from root's.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return failed("the mounts made private");
    for (const std::string& dir : dirs) {
        if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) return failed(dir + " bound onto itself");
        for (const std::string& point : mounts_at_or_below(dir))
            if (mount(nullptr, point.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | kept_flags(point.c_str()), nullptr) != 0)
                return failed(point + " made read-only");
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) return failed("a /proc of its own");
    // The working folder is taken again by its path: as it was, it is the folder under the mounts,
    // where a relative path (build/exercises/NAME) would still reach the writable files.
    char* here = getcwd(nullptr, 0);
    const bool moved = here == nullptr || chdir(here) == 0;
    std::free(here);
    if (!moved) return failed("the working folder taken again");
    return "";
}

// Whether the PID namespace's mode works here, with `dirs` read-only, tried in a child so that this
// process is left as it was: the namespaces, the mounts, the /proc.
bool namespaces_work(const std::vector<std::string>& dirs) {
    const pid_t probe = fork();
    if (probe == 0) {
        if (!enter_pid_namespace()) _exit(1);
        const pid_t init = fork();
        if (init == 0) _exit(contain_mounts(dirs).empty() ? 0 : 1);
        int status = 1;
        _exit(init > 0 && waitpid(init, &status, 0) == init && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
    }
    int status = 1;
    if (probe > 0) waitpid(probe, &status, 0);
    return probe > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// No capability for the program, now or after its exec, even run as root or as the root of a user
// namespace (it could otherwise remount the read-only folders or raise its file-size limit), and none
// to gain from a set-user-ID program (no_new_privs). Where this process has none, nothing changes.
void drop_capabilities() {
    for (int capability = 0; capability < 64; ++capability) prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);  // past the last: EINVAL
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[2] = {};
    syscall(SYS_capset, &header, none);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

}  // namespace contain
