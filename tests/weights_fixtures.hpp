// What the weight-file tests share: a temporary file, safetensors bytes written by hand (a header of
// any length, nesting any depth), and a small model with every kind of parameter.
// Leaves out running the programs (tests/programs.hpp).
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "nn/transformer.hpp"
#include "positional/make_position.hpp"

namespace wai::testing {

// A file in the temporary folder, removed at the end of the test that made it.
struct TemporaryFile {
    std::string path;
    explicit TemporaryFile(const std::string& name)
        : path((std::filesystem::temp_directory_path() / ("whereami_test_" + std::to_string(getpid()) + "_" + name)).string()) {}
    ~TemporaryFile() { std::filesystem::remove(path); }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
};

// A safetensors file by hand: the 8-byte little-endian length of `header` (or `header_length`),
// `header`, then `data`.
inline std::string file_bytes(const std::string& header, const std::string& data, uint64_t header_length) {
    std::string bytes(8, '\0');
    std::memcpy(bytes.data(), &header_length, 8);
    return bytes + header + data;
}
inline std::string file_bytes(const std::string& header, const std::string& data) {
    return file_bytes(header, data, header.size());
}

// A header nested `levels` deep at `where`: in a shape, in data_offsets, in the metadata, or as a tensor entry.
inline std::string deep_header(const std::string& where, int levels) {
    const std::string lists = std::string(levels, '[') + std::string(levels, ']');
    std::string objects;
    for (int i = 0; i < levels; ++i) objects += "{\"a\":";
    objects += "\"x\"" + std::string(levels, '}');
    if (where == "shape") return R"({"w":{"dtype":"F32","shape":)" + lists + R"(,"data_offsets":[0,0]}})";
    if (where == "data_offsets") return R"({"w":{"dtype":"F32","shape":[0],"data_offsets":)" + lists + "}}";
    if (where == "__metadata__") return R"({"__metadata__":)" + objects + "}";
    return R"({"w":)" + objects + "}";
}

// A small model with every kind of parameter, the learned table included.
struct SmallModel {
    explicit SmallModel(uint64_t seed, int64_t dim = 8)
        : generator(seed), model(config(dim), make_position_encoding(parse_position_spec("learned"), dim, 1, generator),
                                 generator) {}
    static TransformerConfig config(int64_t dim) {
        TransformerConfig c;
        c.vocab = 5, c.outputs = 3, c.dim = dim, c.layers = 1, c.heads = 1, c.mlp_hidden = 16;
        return c;
    }
    Generator generator;
    Transformer model;
};

inline bool same_numbers(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.numel() * sizeof(float)) == 0;
}

}  // namespace wai::testing
