// Writing a whole buffer to a descriptor, however many write() calls it takes (a pipe takes part of
// a large one at a time; a signal can interrupt one). Leaves out buffering and retrying a full disk.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace contain {

// True once all `size` bytes are written; false on an error or a descriptor that takes nothing.
inline bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

}  // namespace contain
