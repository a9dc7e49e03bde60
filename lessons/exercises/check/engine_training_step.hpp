// What the engine exercises' checkers share (topological_order, softmax_backward, layer_norm_backward):
// one training step of the chapter's model, lag with RoPE, run twice on identical models from one
// seed and one batch: once with the library's backward, once with the learner's code in it (the
// learner's order, or the learner's backward in place of an op's), and every parameter's gradient
// compared. Both run on the plain kernels, where softmax and layer_norm are nodes of their own.
// Leaves out the optimizer's step: the gradients are what the learner's code decides.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "lessons/exercises/exercise.hpp"
#include "autograd/ops.hpp"
#include "tasks/experiment.hpp"

namespace exercise {

// The chapter's experiment for lag with RoPE, seed 0: 2 layers, 1 head, width 64.
inline wai::RunConfig chapter_config() {
    wai::RunConfig config;
    config.task = "lag";
    config.scheme = "rope";
    return config;
}

// One batch of lag at the training length, 16 sequences (a quarter of the chapter's 64, to be quick).
inline wai::Batch chapter_batch() {
    wai::Generator generator(23);
    return wai::make_task("lag").sample(generator, 16, chapter_config().train_length);
}

inline wai::Value chapter_loss(const wai::Transformer& model, const wai::Batch& batch) {
    return wai::cross_entropy(model.forward(batch.tokens, batch.B, batch.T), batch.targets);  // ()
}

// Gives every node of the loss's graph named op_name an op whose backward is `yours`; how many.
inline int replace_ops(const wai::Value& loss, const std::string& op_name, const BackwardFunction& yours) {
    int replaced = 0;
    for (wai::Node* node : wai::topological_order(loss.node()))
        if (node->op && op_name == node->op_name) {
            node->op = std::make_unique<LearnerOp>(yours);
            ++replaced;
        }
    return replaced;
}

// The step: `your_backward` runs the backward of a freshly recorded loss (on the plain kernels) its
// own way; the library's loss.backward() runs on an identical model. Each parameter's gradient must
// agree to 1e-4 of its largest entry: the two backwards add the same shares in float32, though
// perhaps in another order or with other roundings (a few 1e-7 relative), while a slip moves a
// gradient by a large part of itself.
inline bool compare_training_step(Checker& checker, const std::string& what,
                                  const std::function<void(wai::Value& loss)>& your_backward) {
    const wai::Batch batch = chapter_batch();
    const std::unique_ptr<wai::Transformer> library = wai::make_model(chapter_config());
    const std::unique_ptr<wai::Transformer> yours = wai::make_model(chapter_config());
    chapter_loss(*library, batch).backward();
    wai::Value loss = chapter_loss(*yours, batch);
    your_backward(loss);
    const auto expected = library->named_parameters(), got = yours->named_parameters();
    for (size_t i = 0; i < expected.size(); ++i) {
        const std::string name = what + ": the gradient of " + expected[i].first;
        if (!got[i].second.has_grad()) return checker.wrong(name, "no gradient reached this parameter");
        const wai::Tensor& want = expected[i].second.grad();
        double largest = 0.0;
        for (int64_t k = 0; k < want.numel(); ++k) largest = std::max(largest, std::abs(static_cast<double>(want[k])));
        const double tolerance = 1e-4 * largest + 1e-9;
        if (first_difference(got[i].second.grad(), want, tolerance) >= 0)
            return checker.compare(name, got[i].second.grad(), want, tolerance);
    }
    return checker.ok(what + ": all " + std::to_string(expected.size()) +
                      " parameters' gradients agree with the library's backward, to 1e-4 of each one's largest entry");
}

// The step with `yours` as the backward of every op_name node of the graph, then loss.backward().
inline bool compare_training_step_with_your_op(Checker& checker, const std::string& what, const std::string& op_name,
                                               const BackwardFunction& yours) {
    return compare_training_step(checker, what, [&](wai::Value& loss) {
        const int replaced = replace_ops(loss, op_name, yours);
        checker.note("your function is the backward of the " + std::to_string(replaced) + " " + op_name + " nodes of the recorded graph");
        loss.backward();
    });
}

}  // namespace exercise
