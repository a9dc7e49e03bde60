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

// The expression's values: each a handle to one node of the graph the engine records.
struct Expression {
    wai::Value x, W, b;             // the input (T, D) and the parameters (D, D), (D)
    wai::Value xW, y, y_squared;    // (T, D) each
    wai::Value loss;                // ()
};

// The same forward pass and its gradients, written out in double.
struct ByHand {
    double y[2][2] = {}, loss = 0.0;
    double dW[2][2] = {}, db[2] = {};
};

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

// Nodes carry no names; these are the names of our handles to them, "?" for a node none of them holds.
const char* name_of(const Expression& e, const wai::Node* node) {
    const std::pair<const char*, const wai::Value*> named[] = {{"x", &e.x},   {"W", &e.W},
                                                               {"b", &e.b},   {"xW", &e.xW},
                                                               {"y", &e.y},   {"y_squared", &e.y_squared},
                                                               {"loss", &e.loss}};
    for (const auto& [name, value] : named)
        if (value->node() == node) return name;
    return "?";
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
    bool written = false;  // the DOT file is on disk (the counts are of the DOT text either way)
};

// The graph as Graphviz DOT, read left to right: one box per value (its handle's name, the op that
// made it, shape, value and gradient, or "not needed" for a value that needs none), one arrow per
// input, parent -> child.
Drawn write_dot(const std::filesystem::path& path, const std::vector<wai::Node*>& nodes, const Expression& e) {
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
        dot << "  n" << i << " [label=\"{" << name_of(e, nodes[i]) << " | " << node.op_name << " " << node.value.shape().str()
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
    // Whole or not at all (files/atomic_file.hpp): a full disk or a read-only folder gives its reason
    // and no half a file. The drawing is a convenience: the claims below are about the DOT text.
    try {
        wai::write_file_atomically(path.string(), dot.str());
        drawn.written = true;
    } catch (const std::exception& error) {
        std::printf("  no drawing: %s (the checks below read the DOT text in memory)\n", error.what());
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

// Renders the DOT file as SVG and PNG beside it with Graphviz's dot. Rendering is a convenience:
// without Graphviz, one line says so and the lesson goes on.
void render(const std::filesystem::path& dot_file) {
    if (std::system("command -v dot >/dev/null 2>&1") != 0) {
        std::printf("  Graphviz's dot is not installed (Debian package graphviz): no SVG or PNG, the DOT file is there\n");
        return;
    }
    const std::filesystem::path folder = dot_file.parent_path();
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

// Step 1. The expression. A Value is a handle to a node of the graph. A leaf made with
// requires_grad = true is a parameter: the engine will want its gradient. The input x is a plain
// leaf: nothing about it is learned, so the engine records nothing on its behalf. Each op computes
// its result at once (there is no separate "run" step) and, because a parent requires a gradient,
// records a node that remembers its inputs and how to send a gradient back.
Expression build_expression() {
    const wai::Value x(wai::Tensor::from_values({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f}));    // (T, D) = (2, 2)
    wai::Value W(wai::Tensor::from_values({2, 2}, {0.5f, -1.0f, 2.0f, 0.25f}), true);  // (D, D)
    const wai::Value b(wai::Tensor::from_values({2}, {0.1f, -0.2f}), true);            // (D)

    const wai::Value xW = wai::matmul(x, W);           // (T, D)
    const wai::Value y = wai::add(xW, b);              // (T, D): the bias repeats over the rows
    const wai::Value y_squared = wai::multiply(y, y);  // (T, D): y is used twice, as both factors
    wai::Value loss = wai::sum(y_squared);             // ()
    return {x, W, b, xW, y, y_squared, loss};
}

// Step 2. The forward pass, by the engine and written out in double:
// y[r][j] = sum_k x[r][k] W[k][j] + b[j], loss = sum_rj y[r][j]².
void check_forward_by_hand(const Expression& e, ByHand& by_hand) {
    lesson::heading("The expression: y = x·W + b, loss = " + spelled_out(e.loss.node(), e.y.node()));
    print_matrix("x", e.x.value());
    print_matrix("W", e.W.value());
    std::printf("  b        [%8.4f %8.4f]\n", e.b.value()[0], e.b.value()[1]);
    print_matrix("y", e.y.value());
    std::printf("  loss     %.4f\n", e.loss.value().item());

    double loss_by_hand = 0.0;
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 2; ++j) {
            by_hand.y[r][j] = e.b.value()[j];
            for (int k = 0; k < 2; ++k) by_hand.y[r][j] += double(e.x.value()[r * 2 + k]) * e.W.value()[k * 2 + j];
            loss_by_hand += by_hand.y[r][j] * by_hand.y[r][j];
        }
    by_hand.loss = loss_by_hand;
    bool forward_agrees = close(e.loss.value().item(), loss_by_hand, 1e-6);
    for (int i = 0; i < 4; ++i) forward_agrees = forward_agrees && close(e.y.value()[i], by_hand.y[i / 2][i % 2], 1e-6);
    char forward_numbers[160];
    std::snprintf(forward_numbers, sizeof forward_numbers, "loss %.6g by the engine, %.6g by hand; y[0][0] %.6g and %.6g",
                  e.loss.value().item(), loss_by_hand, e.y.value()[0], by_hand.y[0][0]);
    lesson::check(forward_agrees, "the engine's forward pass equals the one written out by hand", forward_numbers);
}

// Step 3. The graph. topological_order walks back from the loss through every parent that needs a
// gradient and lists each node after its parents: the order in which the forward pass could
// have run. Backward visits it in reverse, so a node's gradient is complete before it is passed on.
void show_the_graph_order(const Expression& e) {
    lesson::heading("The graph the engine recorded, parents before children");
    const std::vector<wai::Node*> order = wai::topological_order(e.loss.node());
    for (size_t i = 0; i < order.size(); ++i) {
        std::printf("  %zu  %-9s = %-8s %-7s", i, name_of(e, order[i]), order[i]->op_name,
                    order[i]->value.shape().str().c_str());
        if (!order[i]->parents.empty()) std::printf(" inputs:");
        for (const wai::Value& parent : order[i]->parents) std::printf(" %s", name_of(e, parent.node()));
        std::printf("\n");
    }
    bool parents_first = true;
    bool x_in_order = false;
    for (size_t i = 0; i < order.size(); ++i) {
        x_in_order = x_in_order || order[i] == e.x.node();
        for (const wai::Value& parent : order[i]->parents)
            for (size_t later = i; later < order.size(); ++later)
                parents_first = parents_first && order[later] != parent.node();
    }
    lesson::check(parents_first && order.back() == e.loss.node(),
                  "every node comes after its inputs, and the loss comes last");
    lesson::check(!x_in_order, "the input x, which needs no gradient, is not walked at all");
}

// Step 4. Backward by hand: the chain rule, one op at a time from the loss down.
//   loss = sum_rj y[r][j]²          ->  dloss/dy[r][j] = 2 y[r][j]
//     (y is both factors of the multiply: each factor sends back g·(the other) = g·y, and the two
//      arrivals add up to 2y. That sum is why gradients accumulate with += and never overwrite.)
//   y[r][j] = sum_k x[r][k] W[k][j] + b[j]
//                                   ->  dloss/dW[k][j] = sum_r x[r][k] · 2 y[r][j]   (xᵀ · dy)
//                                   ->  dloss/db[j]    = sum_r 2 y[r][j]             (b repeated over r)
void backward_by_hand(const Expression& e, ByHand& by_hand) {
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 2; ++j) {
            const double dy = 2.0 * by_hand.y[r][j];
            for (int k = 0; k < 2; ++k) by_hand.dW[k][j] += e.x.value()[r * 2 + k] * dy;
            by_hand.db[j] += dy;
        }
}

// Step 5. Backward by the engine: seed dloss/dloss = 1, then every node's backward in reverse order.
// Backward frees an interior node's gradient as soon as it has passed it on; retain_grad, set here on
// every node of the graph (PyTorch's Tensor.retain_grad() does the same for one tensor), keeps them
// all, so the drawing in step 6 shows each node's gradient, as micrograd's does.
void backward_by_the_engine(const Expression& e, const ByHand& by_hand) {
    std::vector<wai::Node*> nodes;
    every_node(e.loss.node(), nodes);
    for (wai::Node* node : nodes) node->retain_grad = true;
    wai::Value loss = e.loss;
    loss.backward();

    lesson::heading("Gradients: by hand and by the engine");
    bool gradients_agree = true;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j) {
            const double engine = e.W.grad()[k * 2 + j];
            std::printf("  dloss/dW[%d][%d]  by hand %9.4f   engine %9.4f\n", k, j, by_hand.dW[k][j], engine);
            gradients_agree = gradients_agree && close(engine, by_hand.dW[k][j], 1e-5);
        }
    for (int j = 0; j < 2; ++j) {
        const double engine = e.b.grad()[j];
        std::printf("  dloss/db[%d]     by hand %9.4f   engine %9.4f\n", j, by_hand.db[j], engine);
        gradients_agree = gradients_agree && close(engine, by_hand.db[j], 1e-5);
    }
    lesson::check(gradients_agree, "backward by the engine equals backward by hand, to float rounding");
}

// Step 6. The picture, after backward, so every value shows its gradient: the parameters theirs, the
// interior nodes the ones step 5 kept. It goes next to this program, wherever it is run from; a
// dashed box is a value that needs no gradient, the input x.
void draw_the_graph(const Expression& e, const char* program) {
    lesson::heading("The graph, drawn: every value with its gradient");
    std::vector<wai::Node*> all_nodes;
    every_node(e.loss.node(), all_nodes);
    // What the picture must hold, counted from the graph actually built: every node one of our named
    // values (a name in name_of whose value the loss no longer uses is not in the graph), one arrow per
    // input, and a gradient in every box whose value needs one.
    size_t inputs = 0, needing = 0;
    bool every_node_named = true;
    for (const wai::Node* node : all_nodes) {
        inputs += node->parents.size();
        needing += node->requires_grad;
        every_node_named = every_node_named && std::string(name_of(e, node)) != "?";
    }
    const std::filesystem::path folder = std::filesystem::absolute(program).parent_path();
    const std::filesystem::path dot_file = folder / "00_engine_graph.dot";
    const Drawn drawn = write_dot(dot_file, all_nodes, e);
    const size_t not_needing = all_nodes.size() - needing;
    std::printf("  %s: %zu nodes, %zu edges, %zu gradients (%zu value%s need%s none)\n",
                drawn.written ? dot_file.c_str() : "the DOT text", drawn.nodes,
                drawn.edges, drawn.gradients, not_needing, not_needing == 1 ? "" : "s", not_needing == 1 ? "s" : "");
    lesson::check(every_node_named && drawn.nodes == all_nodes.size() && drawn.edges == inputs,
                  "the DOT file has one node per value and one edge per input (" + std::to_string(all_nodes.size()) +
                      " and " + std::to_string(inputs) + ")",
                  std::to_string(drawn.nodes) + " nodes and " + std::to_string(drawn.edges) + " edges written" +
                      (every_node_named ? "" : "; a node of the graph has no name in name_of (shown as ?)"));
    lesson::check(drawn.gradients == needing,
                  "every value that needs a gradient shows it, the interior ones too (" + std::to_string(needing) +
                      " of " + std::to_string(all_nodes.size()) + ")",
                  std::to_string(drawn.gradients) + " gradients drawn");
    if (drawn.written) render(dot_file);
}

// Step 7. A parameter's gradient is a running sum: a second backward adds the same gradient again.
// Training calls zero_grad() before each step's backward for exactly this reason.
void check_gradients_accumulate(const Expression& e, const ByHand& by_hand) {
    wai::Value loss = e.loss, W = e.W;
    loss.backward();
    bool accumulated = true;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j) accumulated = accumulated && close(W.grad()[k * 2 + j], 2 * by_hand.dW[k][j], 1e-5);
    std::printf("\n  after a second backward: dloss/dW[0][0] = %.4f; twice the by-hand %.4f is %.4f\n", W.grad()[0],
                by_hand.dW[0][0], 2 * by_hand.dW[0][0]);
    lesson::check(accumulated, "a second backward adds the gradient again: it accumulates, it is not reset");
    W.zero_grad();
    bool all_zero = true;
    for (int i = 0; i < 4; ++i) all_zero = all_zero && W.grad()[i] == 0.0f;
    std::printf("  then: dloss/dW[0][0] = %.4f (%.4g times one backward's %.4f)\n", W.grad()[0],
                W.grad()[0] / by_hand.dW[0][0], by_hand.dW[0][0]);
    lesson::check(all_zero, "zero_grad() sets it back to zero",
                  "dloss/dW is " + numbers_of(W.grad()) + ", still a sum of backward passes");
}

}  // namespace

int main(int argc, char** argv) {
    lesson::take_arguments(argc, argv);
    const Expression expression = build_expression();
    ByHand by_hand;
    check_forward_by_hand(expression, by_hand);
    show_the_graph_order(expression);
    backward_by_hand(expression, by_hand);
    backward_by_the_engine(expression, by_hand);
    draw_the_graph(expression, argv[0]);
    check_gradients_accumulate(expression, by_hand);
    return lesson::finish("00", "of the engine (its numbers against those worked out by hand)");
}
