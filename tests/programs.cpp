// tests/programs.hpp: running this build's programs from the tests. The Makefile gives this file
// the build and source folders (WAI_BUILD_DIR, WAI_SOURCE_DIR).
#include "tests/programs.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace fs = std::filesystem;

namespace wai::testing {

const std::string build_dir = WAI_BUILD_DIR;
const std::string source_dir = WAI_SOURCE_DIR;

Folder::Folder(const std::string& name)
    : path(fs::temp_directory_path() / ("whereami_programs_" + std::to_string(getpid()) + "_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
}

Folder::~Folder() { fs::remove_all(path); }

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::map<std::string, std::string> files_under(const std::filesystem::path& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
        if (entry.is_regular_file()) files[std::filesystem::relative(entry.path(), root).string()] = read_bytes(entry.path().string());
    return files;
}

std::string quoted(const std::string& text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> result;
    std::istringstream in(line);
    for (std::string word; in >> word;) result.push_back(word == "<empty>" ? "" : word);
    return result;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

long Outcome::err_lines() const { return std::count(err.begin(), err.end(), '\n'); }

namespace {

// The shell command that runs build_dir/program with args in `folder`, its output kept under `tag`.
std::string command_for(const Folder& folder, const std::string& program, const std::vector<std::string>& args,
                        const std::string& tag) {
    std::string command = quoted(build_dir + "/" + program);
    for (const std::string& arg : args) command += " " + quoted(arg);
    return command + " <" + quoted(folder.file(tag + ".in")) + " >" + quoted(folder.file(tag + ".out")) + " 2>" +
           quoted(folder.file(tag + ".err"));
}

int shell(const Folder& folder, const std::string& command) {
    const int raw = std::system(("cd " + quoted(folder.path.string()) + " && " + command).c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

Outcome collected(const Folder& folder, const std::string& tag, int status) {
    return {status, read_bytes(folder.file(tag + ".out")), read_bytes(folder.file(tag + ".err"))};
}

}  // namespace

Outcome run(const Folder& folder, const std::string& program, const std::vector<std::string>& args,
            const std::string& input, const std::string& tag) {
    write_bytes(folder.file(tag + ".in"), input);
    const int status = shell(folder, "exec " + command_for(folder, program, args, tag));
    return collected(folder, tag, status);
}

Outcome script(const Folder& folder, const std::string& text, const std::string& tag) {
    write_bytes(folder.file(tag + ".in"), "");
    const int status = shell(folder, "bash -c " + quoted(text) + " <" + quoted(folder.file(tag + ".in")) + " >" +
                                         quoted(folder.file(tag + ".out")) + " 2>" + quoted(folder.file(tag + ".err")));
    return collected(folder, tag, status);
}

std::pair<Outcome, Outcome> run_two_at_once(const Folder& folder, const std::vector<std::string>& first,
                                            const std::vector<std::string>& second) {
    write_bytes(folder.file("a.in"), "");
    write_bytes(folder.file("b.in"), "");
    // Each run's exit status into its own file: `wait` alone would answer 0 whatever the runs did.
    const auto started = [&](const std::vector<std::string>& args, const std::string& tag) {
        return "{ " + command_for(folder, "train_position", args, tag) + "; echo $? > " + quoted(folder.file(tag + ".status")) +
               "; } &";
    };
    REQUIRE(shell(folder, "( " + started(first, "a") + " " + started(second, "b") + " wait )") == 0);
    const auto status_of = [&](const std::string& tag) { return std::stoi(read_bytes(folder.file(tag + ".status"))); };
    const Outcome a = collected(folder, "a", status_of("a")), b = collected(folder, "b", status_of("b"));
    INFO("first: " << a.err << "second: " << b.err);
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    return {a, b};
}

std::string program_path(const std::string& program) { return quoted(build_dir + "/" + program); }

bool holds(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string this_sanitize() {
    const std::string plain = source_dir + "/build";
    return build_dir.size() > plain.size() + 1 ? build_dir.substr(plain.size() + 1) : "";
}

Outcome make_in_source(const Folder& folder, const std::vector<std::string>& args, const std::string& tag) {
    std::string line = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make --no-print-directory -C " +
                       quoted(source_dir) + " SANITIZE=" + quoted(this_sanitize());
    for (const std::string& arg : args) line += " " + quoted(arg);
    return script(folder, line, tag);
}

const std::vector<std::string> tiny = {"--steps", "3", "--dim", "8", "--mlp", "8", "--layers", "1", "--batch", "2",
                                       "--eval-seqs", "2", "--threads", "1"};

std::vector<std::string> with_tiny_sizes(const std::string& line) {
    std::vector<std::string> given = words(line), args;
    const size_t positional = std::min<size_t>(3, given.size());
    args.assign(given.begin(), given.begin() + positional);
    for (size_t i = 0; i + 1 < tiny.size(); i += 2)
        if (std::find(given.begin() + positional, given.end(), tiny[i]) == given.end()) args = concat(args, {tiny[i], tiny[i + 1]});
    args.insert(args.end(), given.begin() + positional, given.end());
    return args;
}

std::vector<std::string> tiny_with(const std::vector<std::string>& extra, const std::string& start) {
    std::vector<std::string> args = words(start);
    for (size_t i = 0; i + 1 < tiny.size(); i += 2)
        if (std::find(extra.begin(), extra.end(), tiny[i]) == extra.end()) args = concat(args, {tiny[i], tiny[i + 1]});
    return concat(args, extra);
}

std::string tiny_line(const std::string& start, const std::vector<std::string>& extra) {
    std::string line;
    for (const std::string& word : tiny_with(extra, start)) line += (line.empty() ? "" : " ") + quoted(word);
    return line;
}

void check_one_line_refusal(const Outcome& o, int status, const std::string& program, const std::string& fragment) {
    INFO("stderr: " << o.err);
    CHECK(o.status == status);
    CHECK(o.out.empty());
    CHECK(o.err_lines() == 1);
    CHECK_THAT(o.err, Catch::Matchers::StartsWith(program + ": "));
    CHECK_THAT(o.err, Catch::Matchers::ContainsSubstring(fragment));
}

}  // namespace wai::testing
