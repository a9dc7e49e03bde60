// Weight files in the safetensors format, so weights move between whereami and PyTorch unchanged:
// an 8-byte little-endian header length N, N bytes of JSON {"name": {"dtype": "F32", "shape": [...],
// "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"}}, then the raw little-endian
// numbers, offsets counted from the end of the header. Every offset, shape and dtype is checked
// against the file before a byte of data is read; a bad file is refused with a std::runtime_error
// naming the file, what is wrong, and what is accepted.
// Leaves out every dtype but F32 (whereami has no other), memory mapping, and checking that the
// tensors' byte ranges do not overlap (each is only checked to lie inside the data).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nn/module.hpp"

namespace wai {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;  // written in this order

struct WeightsFile {
    std::map<std::string, Tensor> tensors;        // by name; each of rank 0 to 4
    std::map<std::string, std::string> metadata;  // "__metadata__", empty when the file has none
};

WeightsFile read_weights_file(const std::string& path);
// The same checks on a file's bytes already in memory (read_weights_file reads the file, then calls
// this); `path` only names the file in the messages. The fuzz target (tests/fuzz/) calls it.
WeightsFile parse_weights_file(std::string_view bytes, const std::string& path);
// Written whole or not at all by write_file_atomically (tasks/atomic_file.hpp): a reader never
// sees half a file, and no symbolic link or file planted beside it is written through.
void write_weights_file(const std::string& path, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata = {});

// A module's parameters under their dotted names, then `extra` tensors (whose names must differ).
void save_weights(const std::string& path, const Module& module, const NamedTensors& extra = {},
                  const std::map<std::string, std::string>& metadata = {});
// Replaces every parameter's numbers by the file's tensor of the same name; each must be there,
// with the parameter's shape and finite numbers. Other tensors in `file` are ignored (a golden
// file also holds gradients); `path` is for the messages. Nothing is changed unless all fit.
void load_parameters(Module& module, const WeightsFile& file, const std::string& path);
// Reads path and loads it into module; here the file must hold the module's parameters and
// nothing else, so weights saved from a different model are refused rather than half used.
// Returns the file's metadata, for the caller to check what the weights were saved for.
std::map<std::string, std::string> load_weights(const std::string& path, Module& module);

}  // namespace wai
