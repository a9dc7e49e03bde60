// Code that changes the build a later run trusts (a tester's attack): on its first call it writes a
// script that gives "rope_rotation: solved" on the verdict's descriptor with the verdict's token, and
// renames it over the program it runs in, so that the next make exercise, with nothing to link again,
// would run the script as the checker; it also tries a file in the checkout, and one in /tmp. make
// exercise must not say "solved" on the next run: in contain's namespaces the checkout and the build
// folders are read-only to it (only /tmp is written), and in its subreaper mode make links the checker
// again before each run (tests/test_cli_exercises.cpp runs it both ways, through make). Each attempt
// says on a line whether it worked. Its own answer is wrong: x is returned unrotated.
// expect: none
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "lessons/exercises/rope_rotation.hpp"

using wai::Tensor;

namespace {

// "written", or "not written (WHY)" when creating `path` failed; what was written is removed.
std::string try_to_write(const std::string& path) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return std::string("not written (") + std::strerror(errno) + ")";
    close(fd);
    unlink(path.c_str());
    return "written";
}

void attack_once() {
    static bool done = false;
    if (done) return;
    done = true;
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string replaced = "not replaced (its path is unknown)";
    if (n > 0) {
        const std::string program(self, static_cast<size_t>(n));
        const std::string fake = program + ".fake";
        const std::string script = "#!/bin/sh\n"
                                   "echo \"$WAI_VERDICT_TOKEN rope_rotation: solved\" >> /proc/self/fd/$WAI_VERDICT_FD\n"
                                   "echo 'rope_rotation: solved'\n"
                                   "exit 0\n";
        std::FILE* file = std::fopen(fake.c_str(), "w");
        if (file == nullptr)
            replaced = std::string("not replaced (") + std::strerror(errno) + ")";
        else {
            std::fputs(script.c_str(), file);
            std::fclose(file);
            replaced = chmod(fake.c_str(), 0755) == 0 && rename(fake.c_str(), program.c_str()) == 0
                           ? "replaced"
                           : std::string("not replaced (") + std::strerror(errno) + ")";
        }
    }
    std::printf("forges_the_checker: the checker program: %s\n", replaced.c_str());
    // make runs the program in the checkout's folder.
    std::printf("forges_the_checker: the checkout: %s\n", try_to_write("forges_the_checker." + std::to_string(getpid())).c_str());
    std::printf("forges_the_checker: /tmp: %s\n", try_to_write("/tmp/forges_the_checker." + std::to_string(getpid())).c_str());
    std::fflush(stdout);
}

}  // namespace

Tensor apply_rope(const Tensor& x, const Tensor&) {
    attack_once();
    return x;
}

RopeScores exercise_scores(const Tensor&) {
    attack_once();
    return {};
}
