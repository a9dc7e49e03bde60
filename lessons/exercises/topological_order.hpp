// The topological-order exercise (the engine under the chapter): what you write in
// topological_order.cpp, which the checker (check/topological_order.cpp) calls on small graphs and
// on the chapter's model, then trains one step with.
// Leaves out the answer: wai::topological_order (autograd/value.cpp) is the library's, once you have tried.
#pragma once
#include <vector>

#include "autograd/value.hpp"
#include "lessons/exercises/marked_place.hpp"

// Yours: every node reachable from root through parents that require a gradient, root included,
// each one after all of its parents. Backward walks this list from the end, so every node has its
// whole gradient before its op hands it on.
std::vector<wai::Node*> my_topological_order(wai::Node* root);
