// Code that writes a file without end: 200 MiB, 1 MiB a call, into a temporary file. contain's limit
// on a file's size (make's EXERCISE_FILE_MIB) stops it with SIGXFSZ at the limit, and make exercise
// says so in one sentence (tests/test_cli_exercises.cpp, with EXERCISE_FILE_MIB=1); nothing is left on
// the disk (tmpfile: removed when it closes, or when the program ends).
// expect: none
#include <cstdio>
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    std::FILE* file = std::tmpfile();
    const std::vector<char> mebibyte(1 << 20, 'x');
    for (int i = 0; file != nullptr && i < 200; ++i) std::fwrite(mebibyte.data(), 1, mebibyte.size(), file);
    if (file != nullptr) std::fclose(file);
    return {};
}
