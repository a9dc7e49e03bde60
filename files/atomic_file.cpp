// Whole-or-nothing file writes: mkostemp beside the target, write, fsync, rename, fsync the folder.
// Leaves out systems other than POSIX ones with mkostemp (glibc, musl).
#include "files/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace wai {

namespace {

std::string folder_of(const std::string& path) {
    const std::string parent = std::filesystem::path(path).parent_path().string();
    return parent.empty() ? "." : parent;
}

const char* file_kind(mode_t mode) {
    if (S_ISREG(mode)) return "a file";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Why `path` cannot be written whole by a rename over it, or "" when it can.
std::string refusal(const std::string& path) {
    if (path.empty()) return "the path is empty";
    if (path.back() == '/') return "it names a folder, not a file";
    const std::string folder = folder_of(path);
    struct stat s {};
    if (stat(folder.c_str(), &s) != 0) return "the folder '" + folder + "' does not exist";
    if (!S_ISDIR(s.st_mode)) return "'" + folder + "' is " + file_kind(s.st_mode) + ", not a folder";
    // What is at the path comes before whether its folder is writable: "/dev/null is a character
    // device" says more than "/dev is not writable", which only a user who is not root would hear.
    if (lstat(path.c_str(), &s) == 0) {
        if (S_ISLNK(s.st_mode))
            return "it is a symbolic link, which is never written through or replaced; give the path of the file it "
                   "points to, or remove the link";
        if (!S_ISREG(s.st_mode))
            return std::string("it exists and is ") + file_kind(s.st_mode) + ", not a regular file; refusing to replace it";
    } else if (errno != ENOENT) {
        return std::strerror(errno);
    }
    if (access(folder.c_str(), W_OK | X_OK) != 0) return "the folder '" + folder + "' is not writable";
    return "";
}

// While alive, SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back: the first one to arrive is
// remembered and raised again, with the program's own disposition, once the file is renamed or
// removed. A handler rather than a blocked mask, since any thread (an idle OpenMP worker) may be the
// one a signal to the process is delivered to. A signal the program ignores stays ignored.
volatile std::sig_atomic_t held_signal = 0;
extern "C" void remember_signal(int signal) {
    if (held_signal == 0) held_signal = signal;
}

class SignalsHeld {
public:
    SignalsHeld() {
        held_signal = 0;
        struct sigaction hold {};
        hold.sa_handler = remember_signal;
        sigemptyset(&hold.sa_mask);
        hold.sa_flags = SA_RESTART;
        for (int i = 0; i < count; ++i) {
            sigaction(signals[i], nullptr, &old_[i]);
            installed_[i] = old_[i].sa_handler != SIG_IGN && sigaction(signals[i], &hold, nullptr) == 0;
        }
    }
    ~SignalsHeld() {
        for (int i = 0; i < count; ++i)
            if (installed_[i]) sigaction(signals[i], &old_[i], nullptr);
        if (held_signal != 0) std::raise(held_signal);
    }
    SignalsHeld(const SignalsHeld&) = delete;
    SignalsHeld& operator=(const SignalsHeld&) = delete;

private:
    static constexpr int count = 4;
    static constexpr int signals[count] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction old_[count] {};
    bool installed_[count] = {};
};

mode_t creation_mode() {
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

}  // namespace

void check_output_path(const std::string& path, const std::string& what) {
    const std::string why = refusal(path);
    if (!why.empty()) throw std::invalid_argument(what + " " + (path.empty() ? "''" : path) + ": " + why);
}

namespace {

// `pieces` into a new temporary file beside `path`, fsync'ed; returns its name. On a failure the
// temporary file is removed and std::runtime_error names `path` and the step.
std::string write_temporary(const std::string& path, const std::vector<std::string_view>& pieces) {
    std::string name = path + ".tmp.XXXXXX";
    const int fd = mkostemp(name.data(), O_CLOEXEC | O_NOFOLLOW);  // O_CREAT | O_EXCL, mode 0600
    if (fd < 0)
        throw std::runtime_error("cannot write " + path + ": cannot create a temporary file beside it (" +
                                 std::strerror(errno) + ")");
    bool is_open = true;
    const auto fail = [&](const char* step) {
        const int error = errno;
        if (is_open) close(fd);
        unlink(name.c_str());
        throw std::runtime_error("cannot write " + path + ": " + step + " (" + std::strerror(error) + ")");
    };
    if (fchmod(fd, creation_mode()) != 0) fail("cannot set the temporary file's mode");
    for (const std::string_view piece : pieces) {
        const char* at = piece.data();
        size_t left = piece.size();
        while (left > 0) {
            const ssize_t written = write(fd, at, left);
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) {
                if (written == 0) errno = EIO;
                fail("writing it failed");
            }
            at += written;
            left -= static_cast<size_t>(written);
        }
    }
    if (fsync(fd) != 0) fail("flushing it to the disk failed");
    is_open = false;
    if (close(fd) != 0) fail("closing it failed");
    return name;
}

// The temporary file renamed over `path`, and the rename taken to the disk with the folder; on a
// failed rename the temporary file is removed.
void rename_into_place(const std::string& temporary, const std::string& path) {
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        unlink(temporary.c_str());
        throw std::runtime_error("cannot write " + path + ": renaming the temporary file over it failed (" +
                                 std::strerror(error) + ")");
    }
    // A folder that cannot be synced (some file systems refuse) still holds the whole new file.
    const int folder = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
        fsync(folder);
        close(folder);
    }
}

void refuse_unless_writable(const std::string& path) {
    const std::string why = refusal(path);
    if (!why.empty()) throw std::runtime_error("cannot write " + (path.empty() ? std::string("''") : path) + ": " + why);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces) {
    refuse_unless_writable(path);
    const SignalsHeld held;
    rename_into_place(write_temporary(path, pieces), path);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string_view>>& files) {
    for (const auto& [path, text] : files) refuse_unless_writable(path);
    const SignalsHeld held;
    std::vector<std::string> temporaries;
    try {
        for (const auto& [path, text] : files) temporaries.push_back(write_temporary(path, {text}));
    } catch (...) {
        for (const std::string& name : temporaries) unlink(name.c_str());
        throw;
    }
    for (size_t i = 0; i < files.size(); ++i) {
        try {
            rename_into_place(temporaries[i], files[i].first);
        } catch (...) {
            for (size_t j = i + 1; j < files.size(); ++j) unlink(temporaries[j].c_str());
            throw;
        }
    }
}

}  // namespace wai
