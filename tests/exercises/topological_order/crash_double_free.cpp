// Code that corrupts the heap (frees the same block twice): the C library finds it and stops the
// program with SIGABRT, and the sentence names the corrupted heap its message reports, not a failed
// assertion or an index past the end.
// expect: 134 | free\(\): double free detected | topological_order, crash_double_free: your code stopped the program: the C library found its heap corrupted \(SIGABRT; it said: free\(\): double free detected | !failed assertion | !past the end
#include <vector>

#include "lessons/exercises/topological_order.hpp"

using wai::Node;

std::vector<Node*> my_topological_order(Node*) {
    int* volatile block = new int[4];
    delete[] block;
    delete[] block;
    return {};
}
