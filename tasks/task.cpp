// The two tasks' batch samplers. Leaves out padding: every sequence in a batch has length T.
#include "tasks/task.hpp"

#include <stdexcept>

#include "autograd/ops.hpp"

namespace wai {

static Batch random_tokens(Generator& generator, int64_t B, int64_t T, int64_t vocab) {
    if (B <= 0 || T <= 0 || vocab <= 0) throw std::invalid_argument("batch: B, T and the vocabulary must be positive");
    Batch batch;
    batch.B = B;
    batch.T = T;
    batch.tokens.resize(B * T);
    for (int& token : batch.tokens) token = static_cast<int>(generator.integer(vocab));
    batch.targets.assign(B * T, ignore_index);
    return batch;
}

Batch lag_batch(Generator& generator, int64_t B, int64_t T, int64_t vocab, int64_t lag) {
    Batch batch = random_tokens(generator, B, T, vocab);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t t = lag; t < T; ++t) batch.targets[b * T + t] = batch.tokens[b * T + t - lag];
    return batch;
}

Batch seen_batch(Generator& generator, int64_t B, int64_t T, int64_t vocab) {
    Batch batch = random_tokens(generator, B, T, vocab);
    std::vector<char> seen(vocab);
    for (int64_t b = 0; b < B; ++b) {
        std::fill(seen.begin(), seen.end(), 0);
        for (int64_t t = 0; t < T; ++t) {
            const int token = batch.tokens[b * T + t];
            batch.targets[b * T + t] = seen[token] ? 1 : 0;
            seen[token] = 1;
        }
    }
    return batch;
}

Batch Task::sample(Generator& generator, int64_t B, int64_t T) const {
    return kind == Kind::lag ? lag_batch(generator, B, T, vocab, lag) : seen_batch(generator, B, T, vocab);
}

Task make_task(const std::string& name) {
    Task task;
    if (name == "lag") {
        task.kind = Task::Kind::lag;
        task.vocab = 16;
    } else if (name == "seen") {
        task.kind = Task::Kind::seen;
        task.vocab = 96;
    } else {
        throw std::invalid_argument("unknown task '" + name + "': the tasks are lag and seen");
    }
    return task;
}

}  // namespace wai
