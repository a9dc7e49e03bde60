// The chapter's two tasks, as batches of random sequences with a target at every position.
//   lag:  vocabulary 16; the target at position t is the token at t - 3; positions 0..2 are not scored.
//   seen: vocabulary 96; the target is 1 if this token appeared at any earlier position, else 0.
// A position that is not scored has target ignore_index. Leaves out fixed datasets: every batch is
// fresh from the generator it is given.
#pragma once
#include <string>
#include <vector>

#include "tensor/random.hpp"

namespace wai {

struct Batch {
    int64_t B = 0, T = 0;
    std::vector<int> tokens;   // (B, T) row-major
    std::vector<int> targets;  // (B, T); ignore_index where not scored
};

struct Task {
    enum class Kind { lag, seen };
    Kind kind = Kind::lag;
    int64_t vocab = 16;
    int64_t lag = 3;  // lag only: how far back the target token is

    std::string name() const { return kind == Kind::lag ? "lag" : "seen"; }
    int64_t outputs() const { return kind == Kind::lag ? vocab : 2; }  // classes the model predicts
    // B sequences of length T, tokens uniform over the vocabulary, drawn in row-major order.
    Batch sample(Generator& generator, int64_t B, int64_t T) const;
};

// "lag" or "seen" with the task's default vocabulary (16 or 96); throws std::invalid_argument otherwise.
Task make_task(const std::string& name);

Batch lag_batch(Generator& generator, int64_t B, int64_t T, int64_t vocab, int64_t lag);
Batch seen_batch(Generator& generator, int64_t B, int64_t T, int64_t vocab);

}  // namespace wai
