// The checker of the topological-order exercise: your my_topological_order on four graphs, against
// the library's wai::topological_order taken as a set (any order with parents first is right, not
// only the library's): a chain, a diamond (a value used by two ops, and twice by one), a graph with
// inputs that need no gradient, and the loss graph of the chapter's model. In each it checks that
// every node of your list is one backward must visit, that none is there twice, that none is
// missing, and that each comes after its parents, naming the first node that is not (its op, its
// shape and its position in your list). Then one training step of the chapter's model runs its
// backward over your list (wai::backward_in_order), and every parameter's gradient is compared with
// the library's backward. Known slips it names: the reverse order, no visited set, inputs listed.
// Leaves out speed: a recursive search is as right as the library's explicit stack.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/exercises/check/engine_training_step.hpp"
#include "lessons/exercises/topological_order.hpp"

using wai::Node;
using wai::Shape;
using wai::Tensor;
using wai::Value;

namespace {

std::string describe(const Node* node) { return "the '" + std::string(node->op_name) + "' node " + node->value.shape().str(); }

std::string at(size_t position) { return "position " + std::to_string(position) + " of your list"; }

// Is `order` a list in which each node comes after every parent of it that requires a gradient?
// The position of the first node that does not, or -1.
long first_before_a_parent(const std::vector<Node*>& order, size_t* parent_position = nullptr) {
    std::map<const Node*, size_t> position;
    for (size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
    for (size_t i = 0; i < order.size(); ++i)
        for (const Value& parent : order[i]->parents) {
            const auto found = position.find(parent.node());
            if (parent.requires_grad() && found != position.end() && found->second > i) {
                if (parent_position) *parent_position = found->second;
                return static_cast<long>(i);
            }
        }
    return -1;
}

// How many paths lead from the root to each node: a node reached along two is what a search without
// a visited set lists twice.
std::map<const Node*, long> paths_from_root(const std::vector<Node*>& library) {
    std::map<const Node*, long> paths;
    if (library.empty()) return paths;
    paths[library.back()] = 1;
    for (auto it = library.rbegin(); it != library.rend(); ++it)
        for (const Value& parent : (*it)->parents)
            if (parent.requires_grad()) paths[parent.node()] += paths[*it];
    return paths;
}

// The checks of one graph, in the order a slip shows first; false at the first failure.
bool check_graph(exercise::Checker& checker, const std::string& graph, const Value& root) {
    const std::vector<Node*> library = wai::topological_order(root.node());
    const std::set<const Node*> must_visit(library.begin(), library.end());
    const std::vector<Node*> yours = my_topological_order(root.node());
    const std::string what = "your order of " + graph;

    std::map<const Node*, size_t> first_seen;
    for (size_t i = 0; i < yours.size(); ++i) {
        const Node* node = yours[i];
        if (!node) return checker.wrong(what, at(i) + " is a null pointer");
        if (!must_visit.count(node))
            return checker.wrong(what, at(i) + " is " + describe(node) + ", which " +
                                           (node->requires_grad ? "is not reachable from the root" : "does not require a gradient"),
                                 node->requires_grad ? "" : "an input that needs no gradient is listed: skip every parent whose requires_grad is false; backward has nothing to hand it");
        const auto [earlier, inserted] = first_seen.emplace(node, i);
        if (!inserted)
            return checker.wrong(what, describe(node) + " at " + at(i) + " is already at position " + std::to_string(earlier->second),
                                 paths_from_root(library)[node] > 1
                                     ? "it is reached along two paths (a value used twice, or a node above one), and listed once per path: keep a set of visited nodes, and skip a parent already in it"
                                     : "");
    }
    for (const Node* node : library)
        if (!first_seen.count(node))
            return checker.wrong(what, describe(node) + " is missing: your list has " + std::to_string(yours.size()) + " of the " +
                                           std::to_string(library.size()) + " nodes backward must visit",
                                 node == root.node() ? "the root itself belongs in the list, last" : "");
    size_t parent_position = 0;
    const long offending = first_before_a_parent(yours, &parent_position);
    if (offending >= 0) {
        std::vector<Node*> reversed(yours.rbegin(), yours.rend());
        return checker.wrong(what, describe(yours[offending]) + " at " + at(offending) + " comes before its parent, " +
                                       describe(yours[parent_position]) + " at position " + std::to_string(parent_position),
                             first_before_a_parent(reversed) < 0
                                 ? "your list is children before parents, the reverse order: put a node in the list after its parents (post-order), not before them"
                                 : "put a node in the list only once all of its parents are in it");
    }
    return checker.ok(what + ": all " + std::to_string(library.size()) + " nodes, each once, each after its parents");
}

void check(exercise::Checker& checker) {
    checker.next_hint =
        "write my_topological_order: depth first from the root, visit each parent that requires a gradient, and add a node "
        "to the list after its parents";
    wai::Generator generator(5);
    auto parameter = [&](const Shape& shape) { return Value(Tensor::normal(shape, 0.0f, 1.0f, generator), true); };
    auto input = [&](const Shape& shape) { return Value(Tensor::normal(shape, 0.0f, 1.0f, generator), false); };

    const Value w = parameter(Shape{3});
    if (!check_graph(checker, "a chain, sum(gelu(2 gelu(w)))", wai::sum(wai::gelu(wai::scale(wai::gelu(w), 2.0f))))) return;

    const Value v = parameter(Shape{2, 3});
    const Value h = wai::gelu(v);  // used by scale, and twice by multiply
    if (!check_graph(checker, "a diamond, sum(3 h + h * h) with h = gelu(v)",
                     wai::sum(wai::add(wai::scale(h, 3.0f), wai::multiply(h, h)))))
        return;

    const Value x = input(Shape{4, 3}), weight = parameter(Shape{3, 2}), bias = parameter(Shape{2}), factor = input(Shape{2});
    if (!check_graph(checker, "a layer with inputs that need no gradient, mean(gelu((x W + b) * c)), x and c inputs",
                     wai::mean(wai::gelu(wai::multiply(wai::add(wai::matmul(x, weight), bias), factor)))))
        return;

    {
        const auto model = wai::make_model(exercise::chapter_config());
        if (!check_graph(checker, "the loss graph of the chapter's model (lag, rope)",
                         exercise::chapter_loss(*model, exercise::chapter_batch())))
            return;
    }

    exercise::compare_training_step(checker, "one training step of the chapter's model, backward walking your list", [](Value& loss) {
        wai::backward_in_order(loss, Tensor::full(loss.shape(), 1.0f), my_topological_order(loss.node()));
    });
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"topological_order", "the order backward visits the graph in (the engine under the chapter)",
                                      "write my_topological_order"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
