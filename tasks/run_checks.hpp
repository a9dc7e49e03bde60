// The limits of a run's configuration (tasks/run_checks.cpp): validate refuses, in one line naming the
// flag, what run_experiment could not run.
// Leaves out the weight files' checks (files/run_weights.hpp).
#pragma once
#include <cstdint>
#include <string>

#include "tasks/run_config.hpp"

namespace wai {

// Checks everything run_experiment would refuse, without training; throws std::invalid_argument.
// steps may be 0 here: the model is tested as it is.
void validate(const RunConfig& config);
// The largest --batch, --train-len, --dim, --heads, --lag and test length validate accepts (--mlp: 4x,
// --eval-seqs and --vocab: 16x, --layers: 64); each message names its range.
constexpr int64_t max_size = 4096;
constexpr int64_t max_steps = 100000;  // --steps, as the page takes them
constexpr int64_t max_vocab = 16 * max_size;  // --vocab

// The line validate refuses a size with, for a value given as text: "--batch must be from 1 to 4096,
// got 0". `name` is --steps, --batch, --train-len, --dim, --layers, --heads, --mlp, --eval-seqs,
// --vocab, --lag or "a test length"; a program that reads a number past 64 bits refuses it with this.
std::string size_refusal(const std::string& name, const std::string& got);

}  // namespace wai
