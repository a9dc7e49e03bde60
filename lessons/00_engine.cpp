// Lesson 00: the engine the other lessons stand on. One tiny expression, loss = sum((x·W + b)²),
// built from autograd ops; the graph the engine recorded for it; and its gradients twice, written
// out by hand below and computed by the engine's backward. They agree.
// Like micrograd's draw_dot, it also draws that graph with every node's value and gradient (the
// engine is asked to keep the interior gradients it would otherwise free): a Graphviz DOT file next
// to the program (build/lessons/00_engine_graph.dot), rendered to SVG and PNG when Graphviz's `dot`
// is installed.
// Mirrors no section of the chapter: the chapter leaves this part to numpy and PyTorch, and every
// later lesson uses it. Leaves out the layers (nn/), finite-difference gradient checks (tests/) and
// the no-grad scope (lesson 01 uses it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.hpp"
#include "lessons/lesson.hpp"
#include "files/atomic_file.hpp"

namespace {

bool close(double actual, double expected, double relative) {
    return std::abs(actual - expected) <= relative * std::max(1.0, std::abs(expected));
}

// A (2, 2) tensor as two printed rows.
void print_matrix(const char* name, const wai::Tensor& m) {
    std::printf("  %-8s [%8.4f %8.4f]\n  %-8s [%8.4f %8.4f]\n", name, m[0], m[1], "", m[2], m[3]);
}

// A tensor's numbers for a graph label, "[1 2; 3 4]" (rows split by ';'), or its size when it has more
// than `most` numbers: a label stays readable.
std::string numbers_of(const wai::Tensor& t, int64_t most = 4) {
    if (t.numel() > most) return std::to_string(t.numel()) + " numbers";
    const int64_t row = t.rank() >= 2 ? t.shape().last() : t.numel();
    std::string text = "[";
    char number[32];
    for (int64_t i = 0; i < t.numel(); ++i) {
        std::snprintf(number, sizeof number, "%.4g", t[i]);
        text += (i == 0 ? "" : i % row == 0 ? "; " : " ") + std::string(number);
    }
    return text + "]";
}

// The expression that made `node`, spelled out from the graph down to y: "sum(y²)". It is read from
// the nodes the engine recorded, so it names the loss actually built, whatever it is changed to.
// A value times itself is written as its square; any other leaf than y is written as its numbers.
std::string spelled_out(const wai::Node* node, const wai::Node* y) {
    if (node == y) return "y";
    if (node->parents.empty()) return numbers_of(node->value);
    if (node->parents.size() == 2 && node->parents[0].node() == node->parents[1].node() &&
        std::string(node->op_name) == "multiply")
        return spelled_out(node->parents[0].node(), y) + "²";
    std::string text = std::string(node->op_name) + "(";
    for (size_t i = 0; i < node->parents.size(); ++i)
        text += (i == 0 ? "" : ", ") + spelled_out(node->parents[i].node(), y);
    return text + ")";
}

// Every node reachable from root through parents, each once, parents before children. Unlike
// topological_order, which walks only what backward needs, this also reaches inputs such as x:
// the picture shows the whole expression.
void every_node(wai::Node* node, std::vector<wai::Node*>& order) {
    if (std::find(order.begin(), order.end(), node) != order.end()) return;
    for (const wai::Value& parent : node->parents) every_node(parent.node(), order);
    order.push_back(node);
}

// What write_dot wrote: boxes, arrows, and boxes showing a gradient.
struct Drawn {
    size_t nodes = 0, edges = 0, gradients = 0;
};

// The graph as Graphviz DOT, read left to right: one box per value (its handle's name, the op that
// made it, shape, value and gradient, or "not needed" for a value that needs none), one arrow per
// input, parent -> child.
template <typename NameOf>
Drawn write_dot(const std::filesystem::path& path, const std::vector<wai::Node*>& nodes, NameOf name_of) {
    std::ostringstream dot;
    dot << "digraph engine {\n  rankdir=LR;\n  node [shape=record, fontname=\"monospace\", fontsize=10];\n";
    Drawn drawn;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const wai::Node& node = *nodes[i];
        const std::string grad = node.grad.defined() ? numbers_of(node.grad)
                                 : node.requires_grad ? std::string("none kept")
                                                      : std::string("not needed");
        drawn.gradients += node.grad.defined();
        // Record labels treat { } | < > as structure: the numbers use only [ ] ; and spaces.
        dot << "  n" << i << " [label=\"{" << name_of(nodes[i]) << " | " << node.op_name << " " << node.value.shape().str()
            << " | value " << numbers_of(node.value) << " | grad " << grad << "}\"" << (node.requires_grad ? "" : ", style=dashed")
            << "];\n";
    }
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const wai::Value& parent : nodes[i]->parents) {
            const size_t from = std::find(nodes.begin(), nodes.end(), parent.node()) - nodes.begin();
            dot << "  n" << from << " -> n" << i << ";\n";
            ++drawn.edges;
        }
    dot << "}\n";
    drawn.nodes = nodes.size();
    // Whole or not at all (files/atomic_file.hpp): a full disk gives its reason and no half a file.
    try {
        wai::write_file_atomically(path.string(), dot.str());
    } catch (const std::exception& e) {
        std::printf("  %s\n", e.what());
        return {};
    }
    return drawn;
}

// A picture that ends as its format ends: an SVG with </svg>, a PNG with its IEND chunk.
bool whole_picture(const std::filesystem::path& path, const std::string& format) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (format == "svg") return bytes.find("</svg>", bytes.size() < 16 ? 0 : bytes.size() - 16) != std::string::npos;
    return bytes.size() >= 8 && bytes.compare(bytes.size() - 8, 8, std::string("IEND\xae\x42\x60\x82", 8)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);

    // A Value is a handle to a node of the graph. A leaf made with requires_grad = true is a
    // parameter: the engine will want its gradient. The input x is a plain leaf: nothing about
    // it is learned, so the engine records nothing on its behalf.
    const wai::Value x(wai::Tensor::from_values({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f}));    // (T, D) = (2, 2)
    wai::Value W(wai::Tensor::from_values({2, 2}, {0.5f, -1.0f, 2.0f, 0.25f}), true);  // (D, D)
    const wai::Value b(wai::Tensor::from_values({2}, {0.1f, -0.2f}), true);            // (D)

    // Each op computes its result at once (there is no separate "run" step) and, because a parent
    // requires a gradient, records a node that remembers its inputs and how to send a gradient back.
    const wai::Value xW = wai::matmul(x, W);           // (T, D)
    const wai::Value y = wai::add(xW, b);              // (T, D): the bias repeats over the rows
    const wai::Value y_squared = wai::multiply(y, y);  // (T, D): y is used twice, as both factors
    wai::Value loss = wai::sum(y_squared);             // ()

    lesson::heading("The expression: y = x·W + b, loss = " + spelled_out(loss.node(), y.node()));
    print_matrix("x", x.value());
    print_matrix("W", W.value());
    std::printf("  b        [%8.4f %8.4f]\n", b.value()[0], b.value()[1]);
    print_matrix("y", y.value());
    std::printf("  loss     %.4f\n", loss.value().item());

    // The same forward pass written out, in double: y[r][j] = sum_k x[r][k] W[k][j] + b[j].
    double y_by_hand[2][2], loss_by_hand = 0.0;
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 2; ++j) {
            y_by_hand[r][j] = b.value()[j];
            for (int k = 0; k < 2; ++k) y_by_hand[r][j] += double(x.value()[r * 2 + k]) * W.value()[k * 2 + j];
            loss_by_hand += y_by_hand[r][j] * y_by_hand[r][j];
        }
    bool forward_agrees = close(loss.value().item(), loss_by_hand, 1e-6);
    for (int i = 0; i < 4; ++i) forward_agrees = forward_agrees && close(y.value()[i], y_by_hand[i / 2][i % 2], 1e-6);
    char forward_numbers[160];
    std::snprintf(forward_numbers, sizeof forward_numbers, "loss %.6g by the engine, %.6g by hand; y[0][0] %.6g and %.6g",
                  loss.value().item(), loss_by_hand, y.value()[0], y_by_hand[0][0]);
    lesson::check(forward_agrees, "the engine's forward pass equals the one written out by hand", forward_numbers);

    // The graph. topological_order walks back from the loss through every parent that needs a
    // gradient and lists each node after its parents: the order in which the forward pass could
    // have run. Backward visits it in reverse, so a node's gradient is complete before it is passed on.
    lesson::heading("The graph the engine recorded, parents before children");
    // Nodes carry no names; these are the names of our handles to them.
    const std::vector<std::pair<const char*, wai::Value>> named = {
        {"x", x}, {"W", W}, {"b", b}, {"xW", xW}, {"y", y}, {"y_squared", y_squared}, {"loss", loss}};
    auto name_of = [&](const wai::Node* node) {
        for (const auto& [name, value] : named)
            if (value.node() == node) return name;
        return "?";
    };
    const std::vector<wai::Node*> order = wai::topological_order(loss.node());
    for (size_t i = 0; i < order.size(); ++i) {
        std::printf("  %zu  %-9s = %-8s %-7s", i, name_of(order[i]), order[i]->op_name,
                    order[i]->value.shape().str().c_str());
        if (!order[i]->parents.empty()) std::printf(" inputs:");
        for (const wai::Value& parent : order[i]->parents) std::printf(" %s", name_of(parent.node()));
        std::printf("\n");
    }
    bool parents_first = true;
    bool x_in_order = false;
    for (size_t i = 0; i < order.size(); ++i) {
        x_in_order = x_in_order || order[i] == x.node();
        for (const wai::Value& parent : order[i]->parents)
            for (size_t later = i; later < order.size(); ++later)
                parents_first = parents_first && order[later] != parent.node();
    }
    lesson::check(parents_first && order.back() == loss.node(),
                  "every node comes after its inputs, and the loss comes last");
    lesson::check(!x_in_order, "the input x, which needs no gradient, is not walked at all");

    // Backward by hand: the chain rule, one op at a time from the loss down.
    //   loss = sum_rj y[r][j]²          ->  dloss/dy[r][j] = 2 y[r][j]
    //     (y is both factors of the multiply: each factor sends back g·(the other) = g·y, and the two
    //      arrivals add up to 2y. That sum is why gradients accumulate with += and never overwrite.)
    //   y[r][j] = sum_k x[r][k] W[k][j] + b[j]
    //                                   ->  dloss/dW[k][j] = sum_r x[r][k] · 2 y[r][j]   (xᵀ · dy)
    //                                   ->  dloss/db[j]    = sum_r 2 y[r][j]             (b repeated over r)
    double dW_by_hand[2][2] = {}, db_by_hand[2] = {};
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 2; ++j) {
            const double dy = 2.0 * y_by_hand[r][j];
            for (int k = 0; k < 2; ++k) dW_by_hand[k][j] += x.value()[r * 2 + k] * dy;
            db_by_hand[j] += dy;
        }

    // Backward by the engine: seed dloss/dloss = 1, then every node's backward in reverse order.
    // Backward frees an interior node's gradient as soon as it has passed it on; retain_grad, set here
    // on every node of the graph (PyTorch's Tensor.retain_grad() does the same for one tensor), keeps
    // them all, so the drawing below shows each node's gradient, as micrograd's does.
    std::vector<wai::Node*> all_nodes;
    every_node(loss.node(), all_nodes);
    for (wai::Node* node : all_nodes) node->retain_grad = true;
    loss.backward();

    lesson::heading("Gradients: by hand and by the engine");
    bool gradients_agree = true;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j) {
            const double engine = W.grad()[k * 2 + j];
            std::printf("  dloss/dW[%d][%d]  by hand %9.4f   engine %9.4f\n", k, j, dW_by_hand[k][j], engine);
            gradients_agree = gradients_agree && close(engine, dW_by_hand[k][j], 1e-5);
        }
    for (int j = 0; j < 2; ++j) {
        const double engine = b.grad()[j];
        std::printf("  dloss/db[%d]     by hand %9.4f   engine %9.4f\n", j, db_by_hand[j], engine);
        gradients_agree = gradients_agree && close(engine, db_by_hand[j], 1e-5);
    }
    lesson::check(gradients_agree, "backward by the engine equals backward by hand, to float rounding");

    // The picture, after backward, so every value shows its gradient: the parameters theirs, the
    // interior nodes the ones retain_grad kept. It goes next to this program, wherever it is run
    // from; a dashed box is a value that needs no gradient, the input x.
    lesson::heading("The graph, drawn: every value with its gradient");
    // What the picture must hold, counted from the graph actually built: every node one of our named
    // values (a name in `named` whose value the loss no longer uses is not in the graph), one arrow per
    // input, and a gradient in every box whose value needs one.
    size_t inputs = 0, needing = 0;
    bool every_node_named = true;
    for (const wai::Node* node : all_nodes) {
        inputs += node->parents.size();
        needing += node->requires_grad;
        every_node_named = every_node_named && std::string(name_of(node)) != "?";
    }
    const std::filesystem::path folder = std::filesystem::absolute(argv[0]).parent_path();
    const std::filesystem::path dot_file = folder / "00_engine_graph.dot";
    const Drawn drawn = write_dot(dot_file, all_nodes, name_of);
    const size_t not_needing = all_nodes.size() - needing;
    std::printf("  %s: %zu nodes, %zu edges, %zu gradients (%zu value%s need%s none)\n", dot_file.c_str(), drawn.nodes,
                drawn.edges, drawn.gradients, not_needing, not_needing == 1 ? "" : "s", not_needing == 1 ? "s" : "");
    lesson::check(every_node_named && drawn.nodes == all_nodes.size() && drawn.edges == inputs,
                  "the DOT file has one node per value and one edge per input (" + std::to_string(all_nodes.size()) +
                      " and " + std::to_string(inputs) + ")",
                  std::to_string(drawn.nodes) + " nodes and " + std::to_string(drawn.edges) + " edges written" +
                      (every_node_named ? "" : "; a node of the graph has no name in `named` (shown as ?)"));
    lesson::check(drawn.gradients == needing,
                  "every value that needs a gradient shows it, the interior ones too (" + std::to_string(needing) +
                      " of " + std::to_string(all_nodes.size()) + ")",
                  std::to_string(drawn.gradients) + " gradients drawn");
    // Rendering is a convenience: without Graphviz, one line says so and the lesson goes on.
    if (std::system("command -v dot >/dev/null 2>&1") != 0) {
        std::printf("  Graphviz's dot is not installed (Debian package graphviz): no SVG or PNG, the DOT file is there\n");
    } else {
        for (const char* format : {"svg", "png"}) {
            // Drawn beside it and renamed only when dot succeeded and the picture is whole (dot can exit 0
            // after a failed write): never a cut picture.
            const std::filesystem::path picture = folder / ("00_engine_graph." + std::string(format));
            const std::filesystem::path drawing = folder / ("00_engine_graph.drawing." + std::string(format));
            const std::string command = "dot -T" + std::string(format) + " '" + dot_file.string() + "' -o '" +
                                        drawing.string() + "'";
            std::error_code error;
            if (std::system(command.c_str()) == 0 && whole_picture(drawing, format) &&
                (std::filesystem::rename(drawing, picture, error), !error))
                std::printf("  drawn: %s\n", picture.c_str());
            else
                std::printf("  dot could not draw %s (the DOT file is still there)\n", picture.c_str());
            std::filesystem::remove(drawing, error);
        }
    }

    // A parameter's gradient is a running sum: a second backward adds the same gradient again.
    // Training calls zero_grad() before each step's backward for exactly this reason.
    loss.backward();
    bool accumulated = true;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j) accumulated = accumulated && close(W.grad()[k * 2 + j], 2 * dW_by_hand[k][j], 1e-5);
    std::printf("\n  after a second backward: dloss/dW[0][0] = %.4f (twice %.4f)\n", W.grad()[0], dW_by_hand[0][0]);
    lesson::check(accumulated, "a second backward adds the gradient again: it accumulates, it is not reset");
    W.zero_grad();
    bool all_zero = true;
    for (int i = 0; i < 4; ++i) all_zero = all_zero && W.grad()[i] == 0.0f;
    std::printf("  then: dloss/dW[0][0] = %.4f (%.4g times one backward's %.4f)\n", W.grad()[0],
                W.grad()[0] / dW_by_hand[0][0], dW_by_hand[0][0]);
    lesson::check(all_zero, "zero_grad() sets it back to zero",
                  "dloss/dW is " + numbers_of(W.grad()) + ", still a sum of backward passes");

    return lesson::finish("00");
}
