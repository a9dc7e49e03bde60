// Weight files in the safetensors format, so weights move between whereami and PyTorch unchanged:
// an 8-byte little-endian header length N, N bytes of JSON {"name": {"dtype": "F32", "shape": [...],
// "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"}}, then the raw little-endian
// numbers, offsets counted from the end of the header. A file is valid only as the reference
// implementation (Hugging Face's safetensors) reads the format: every offset, shape, dtype and key is
// checked against the file before a byte of data is read, and a bad file is refused with a
// std::runtime_error naming the file, what is wrong, and what is accepted (docs/design.md, section 4).
// A module's parameters are named in one of two layouts: ours (nn/'s dotted paths) or the chapter's
// PyTorch model's (emb, pos, layers.N.*, out); a file's layout is told by its tensor names.
// Leaves out every dtype but F32 (whereami has no other) and memory mapping.
#pragma once
#include <cstdint>
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
    std::vector<std::string> order;               // the names in the order of their data in the file
    std::map<std::string, std::string> metadata;  // "__metadata__", empty when the file has none
};

// The reader's limits: the reference's 100,000,000-byte header, and its JSON parser's nesting limit
// (serde_json's 128), enforced while parsing, before any deeper value is built.
constexpr uint64_t max_header_bytes = 100'000'000;
constexpr int max_header_depth = 128;

WeightsFile read_weights_file(const std::string& path);
// The header alone, with every check read_weights_file makes on it (its length, and each entry
// against the file's size); the data is never read. Returns the file's metadata: for judging a file
// cheaply, as the experiment's prune judges the weights beside each result (programs/collect_results.cpp).
std::map<std::string, std::string> read_weights_metadata(const std::string& path);
// `text` with each NUL byte written \x00. A refusal quotes names and values from the file, and an
// exception's what() is a C string: a NUL in a tensor's name or a metadata value would end the
// message where it stands (the programs escape every other unprintable byte when they print it).
std::string nul_shown(std::string text);
// The same checks on a file's bytes already in memory (read_weights_file reads the file, then calls
// this); `path` only names the file in the messages. The fuzz target (tests/fuzz/) calls it.
WeightsFile parse_weights_file(std::string_view bytes, const std::string& path);
// Written whole or not at all by write_file_atomically (files/atomic_file.hpp): a reader never
// sees half a file, and no symbolic link or file planted beside it is written through.
void write_weights_file(const std::string& path, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata = {});

// How a file names the Transformer's parameters: ours ("blocks.0.attention.qkv.weight"), or as the
// chapter's PyTorch model does ("layers.0.qkv.weight"; the table in docs/design.md, section 4).
enum class WeightsLayout { ours, chapter };
// "ours" or "chapter"; anything else throws std::invalid_argument naming both (`what`: the flag).
WeightsLayout parse_weights_layout(const std::string& text, const std::string& what);
// Our parameter name as the chapter's model names it, or "" when that model has no such name.
std::string chapter_name(const std::string& ours);
// The chapter's model's name as ours, or "" when it is not one of that model's names.
std::string name_from_chapter(const std::string& chapter);
// The layout the file's tensor names are in for this module: each must name one of its parameters,
// all in one layout. Otherwise refused, naming the first tensor (in file order) that names none, or
// one of each layout when the file mixes them.
WeightsLayout weights_layout(const WeightsFile& file, const Module& module, const std::string& path);

// A module's parameters under their names in `layout`, then `extra` tensors (whose names must differ).
void save_weights(const std::string& path, const Module& module, const NamedTensors& extra = {},
                  const std::map<std::string, std::string>& metadata = {},
                  WeightsLayout layout = WeightsLayout::ours);
// Replaces every parameter's numbers by the file's tensor of its name in `layout`; each must be there,
// with the parameter's shape and finite numbers. Other tensors in `file` are ignored (a golden file
// also holds gradients); `path` is for the messages. Nothing is changed unless all fit.
void load_parameters(Module& module, const WeightsFile& file, const std::string& path,
                     WeightsLayout layout = WeightsLayout::ours);
// Reads path and loads it into module, in whichever layout it is (weights_layout): the file must hold
// the module's parameters and nothing else, so weights saved from a different model are refused
// rather than half used. Returns the file's metadata, for the caller to check what it was saved for.
std::map<std::string, std::string> load_weights(const std::string& path, Module& module);

}  // namespace wai
