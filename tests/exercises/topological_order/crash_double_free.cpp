// Code that corrupts the heap (frees the same block twice): the C library finds it and stops the
// program with SIGABRT, whose sentence names a corrupted heap as well as a failed assertion.
// expect: 134 | free\(\): double free detected | topological_order, crash_double_free: your code stopped the program with a failed assertion \(SIGABRT.*a heap the C library finds corrupted
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    int* volatile block = new int[4];
    delete[] block;
    delete[] block;
    return {};
}
