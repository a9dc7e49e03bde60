// Writing a file whole or not at all, the one way every whereami program writes an output file
// (weights, result tables, summaries, the pictures' data).
//   - The bytes go to a new temporary file beside the target, "<name>.tmp.XXXXXX", created with
//     O_CREAT | O_EXCL | O_NOFOLLOW under a name nobody could have guessed, so no file or symbolic
//     link planted there beforehand is ever written through; it is fsync'ed, then renamed over the
//     target, and the folder is fsync'ed. A reader sees the old file or the new one, never part of
//     one; two programs writing one path at once each leave a whole file, and the last rename wins.
//   - A target that exists and is not a regular file is refused: a folder, a device such as
//     /dev/null (which a rename would otherwise replace by a plain file), a FIFO, a socket, and a
//     symbolic link too (we neither write through a link nor silently replace it by a file: name
//     the link's target instead). Symbolic links among the folders above the target are followed.
//   - On any failure (a full disk, EFBIG past `ulimit -f`, a folder that is not writable) the
//     temporary file is removed and std::runtime_error says which file and why. SIGINT, SIGTERM,
//     SIGHUP and SIGQUIT wait while the file is written and renamed, so an interrupted program leaves
//     the old file or the new one and no temporary file; only SIGKILL can leave one behind.
// A new file gets the mode a plain create gives (0666 less the umask). Leaves out locking (the last
// writer wins) and keeping an old file's owner or mode.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wai {

// Throws std::invalid_argument "<what> <path>: <reason>" unless `path` could be written by
// write_file_atomically: its folder exists and is writable, it does not name a folder ("dir/"), and
// it either does not exist or is a regular file. For refusing a bad output path before the work.
void check_output_path(const std::string& path, const std::string& what);

// `pieces`, one after another, as the whole new content of `path`, as described above.
void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces);
inline void write_file_atomically(const std::string& path, std::string_view text) {
    write_file_atomically(path, std::vector<std::string_view>{text});
}

// Several files, each (path, text), as one output: every one written to its temporary file first,
// then all renamed. A failure while writing (a full disk, `ulimit -f`) leaves every old file as it
// was and no temporary file: never some files new and some old. (Only a failed rename, after all
// were written, could leave the earlier ones renamed.)
void write_files_atomically(const std::vector<std::pair<std::string, std::string_view>>& files);

}  // namespace wai
