// The training loss: cross-entropy of the logits at the scored positions, averaged over those.
// A position whose target is ignore_index (lag's first positions) adds nothing, not even to the count.
// Leaves out the op itself, which is autograd/cross_entropy.cpp.
#pragma once
#include "autograd/ops.hpp"

namespace wai {

// logits (B, T, n_out), targets B*T class ids or ignore_index -> ()
inline Value sequence_loss(const Value& logits, const std::vector<int>& targets) {
    return cross_entropy(logits, targets);
}

}  // namespace wai
