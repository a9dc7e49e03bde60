// fast::make_split_step: training_step (tasks/experiment.cpp) with the batch cut into micro-batches,
// run on OpenMP threads. With micro-batch j of n_j scored targets out of N in the batch, its loss L_j
// (the mean over its own targets) is seeded with n_j / N, so that the sum of the copies' gradients is
// the gradient of the batch's mean loss, sum_j (n_j / N) L_j, which is what training_step minimises.
// Inside the parallel loop every op's own OpenMP loop and OpenBLAS's products run on the thread that
// calls them (an OpenMP region inside another is one thread, and OpenBLAS's OpenMP build does not
// thread inside one), so each micro-batch is one thread's.
// Leaves out the choice of the threads (startup/thread_policy.hpp).
#include "fast/split_step.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "autograd/ops.hpp"
#include "nn/adamw.hpp"
#include "tasks/experiment.hpp"

namespace wai::fast {

int64_t micro_batches(int64_t batch) {
    // At least 16 sequences each: smaller products lose more to each op's fixed cost than threads
    // win (docs/performance.md, section 14); at most 8, the threads a step can use.
    int64_t parts = 8;
    while (parts > 1 && (batch % parts != 0 || batch / parts < 16)) parts /= 2;
    return parts;
}

namespace {

struct SplitStep {
    std::vector<std::unique_ptr<Transformer>> copies;  // micro-batches 1..K-1; micro-batch 0 is the model's own
    std::vector<Value> parameters;                     // the model's, in order
    std::vector<std::vector<Value>> copy_parameters;   // each copy's, in the same order

    SplitStep(Transformer& model, const RunConfig& c) : parameters(model.parameters()) {
        for (int64_t j = 1; j < micro_batches(c.batch); ++j) {
            copies.push_back(make_model(c));
            copy_parameters.push_back(copies.back()->parameters());
        }
    }

    double operator()(Transformer& model, AdamW& optimizer, const Task& task, Generator& data, const RunConfig& c) {
        const Batch batch = task.sample(data, c.batch, c.train_length);  // tokens, targets (B, T)
        const int64_t K = static_cast<int64_t>(copies.size()) + 1, T = batch.T, Bj = batch.B / K;
        for (auto& copy : copy_parameters)
            for (size_t i = 0; i < copy.size(); ++i) copy[i].value() = parameters[i].value();
        int64_t scored = 0;
        std::vector<int64_t> scored_in(K, 0);
        for (int64_t j = 0; j < K; ++j)
            for (int64_t n = j * Bj * T; n < (j + 1) * Bj * T; ++n) scored_in[j] += batch.targets[n] != ignore_index;
        for (int64_t j = 0; j < K; ++j) scored += scored_in[j];
        optimizer.zero_grad();
        std::vector<double> losses(K, 0.0);
        std::vector<std::exception_ptr> errors(K);
        const int threads = static_cast<int>(std::min<int64_t>(K, omp_get_max_threads()));
        #pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t j = 0; j < K; ++j) {
            try {  // an exception must not leave an OpenMP region: kept, and thrown after it
                Transformer& m = j == 0 ? model : *copies[j - 1];
                if (j > 0) m.zero_grad();
                const auto first = batch.tokens.begin() + j * Bj * T, last = first + Bj * T;
                const std::vector<int> tokens(first, last);
                const std::vector<int> targets(batch.targets.begin() + j * Bj * T, batch.targets.begin() + (j + 1) * Bj * T);
                Value loss = cross_entropy(m.forward(tokens, Bj, T), targets);  // logits (Bj, T, n_out) -> ()
                const float share = scored == 0 ? 0.0f : static_cast<float>(scored_in[j]) / static_cast<float>(scored);
                loss.backward(Tensor::full(Shape{}, share));
                losses[j] = share * loss.value().item();
            } catch (...) {
                errors[j] = std::current_exception();
            }
        }
        for (const auto& error : errors)
            if (error) std::rethrow_exception(error);
        // The copies' gradients into the model's, in the micro-batches' order.
        for (const auto& copy : copy_parameters)
            for (size_t i = 0; i < copy.size(); ++i)
                if (copy[i].has_grad()) parameters[i].accumulate_grad(copy[i].grad());
        optimizer.step();
        double loss = 0;
        for (double l : losses) loss += l;
        return loss;
    }
};

}  // namespace

StepFunction make_split_step(Transformer& model, const RunConfig& config) {
    return [step = std::make_shared<SplitStep>(model, config)](Transformer& m, AdamW& optimizer, const Task& task,
                                                               Generator& data, const RunConfig& c) {
        return (*step)(m, optimizer, task, data, c);
    };
}

}  // namespace wai::fast
