// Weight files: the safetensors reader with its checks, the atomic writer, and the module helpers.
// The whole file is read into memory first: every check is then a comparison with its size, and no
// check can be skipped by a short read. Leaves out streaming files larger than memory.
#include "tasks/weights_file.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tasks/atomic_file.hpp"
#include "tensor/kernels.hpp"

namespace wai {

static_assert(std::endian::native == std::endian::little, "weight files are read by copying little-endian bytes");

namespace {

using Json = nlohmann::json;

const char* const layout =
    "a safetensors file is an 8-byte little-endian header length N, N bytes of JSON, then the data";
const char* const offsets_rule =
    "data_offsets must be [begin, end] with begin <= end <= the size of the data and end - begin = 4 bytes x the "
    "number of elements";

[[noreturn]] void refuse(const std::string& path, const std::string& problem, const std::string& accepted) {
    throw std::runtime_error("weights file '" + path + "': " + problem + "; " + accepted);
}

std::string read_whole_file(const std::string& path) {
    std::error_code error;
    const uintmax_t size = std::filesystem::file_size(path, error);
    if (error) throw std::runtime_error("weights file '" + path + "': cannot read it (" + error.message() + ")");
    std::string bytes(size, '\0');
    std::ifstream in(path, std::ios::binary);
    if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
        throw std::runtime_error("weights file '" + path + "': cannot read it (" + std::strerror(errno) + ")");
    return bytes;
}

// The shape of one header entry: 0 to 4 sizes, each a non-negative integer. With a zero among them,
// the others must still multiply to less than 2^63: the tensor has no numbers, so no byte count
// refuses it, but Shape::numel multiplies in order and [2^62, 2^62, 0] overflowed before it reached
// the zero (found by make fuzz). Without a zero, a product that large is refused by its byte count.
Shape parse_shape(const std::string& path, const std::string& name, const Json& sizes) {
    const std::string rule = "a shape is a list of 0 to 4 non-negative integers";
    if (!sizes.is_array()) refuse(path, "tensor '" + name + "' has no shape list", rule);
    if (sizes.size() > static_cast<size_t>(Shape::max_rank))
        refuse(path, "tensor '" + name + "' has rank " + std::to_string(sizes.size()), rule);
    Shape shape;
    const uint64_t largest = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t product = 1;
    bool has_zero = false, overflows = false;
    for (const Json& size : sizes) {
        if (!size.is_number_unsigned() || size.get<uint64_t>() > largest)
            refuse(path, "tensor '" + name + "' has shape " + sizes.dump(), rule);
        const uint64_t value = size.get<uint64_t>();
        has_zero = has_zero || value == 0;
        if (value > 0 && product > largest / value) overflows = true;
        else if (value > 0) product *= value;
        shape = shape.append(static_cast<int64_t>(value));
    }
    if (has_zero && overflows)
        refuse(path, "tensor '" + name + "' has shape " + sizes.dump(),
               rule + ", and besides a zero, sizes that multiply to less than 2^63");
    return shape;
}

// numel * 4, or more than `limit` when it would not fit in `limit` bytes (no overflow on huge shapes).
uint64_t byte_count(const Shape& shape, uint64_t limit) {
    uint64_t count = 1;
    for (int axis = 0; axis < shape.rank(); ++axis)
        if (shape[axis] == 0) return 0;
    for (int axis = 0; axis < shape.rank(); ++axis) {
        const uint64_t size = static_cast<uint64_t>(shape[axis]);
        if (count > limit / size) return limit + 1;
        count *= size;
    }
    return count > limit / 4 ? limit + 1 : count * 4;
}

// One header entry -> the tensor it describes, its bytes copied out of `data` after every check.
Tensor parse_tensor(const std::string& path, const std::string& name, const Json& entry, const char* data,
                    uint64_t data_size) {
    if (!entry.is_object())
        refuse(path, "header entry '" + name + "' is not an object", "each tensor is {dtype, shape, data_offsets}");
    if (!entry.contains("dtype") || !entry["dtype"].is_string())
        refuse(path, "tensor '" + name + "' has no dtype", "only F32 is accepted");
    if (entry["dtype"] != "F32")
        refuse(path, "tensor '" + name + "' has dtype " + entry["dtype"].get<std::string>(), "only F32 is accepted");
    const Shape shape = parse_shape(path, name, entry.contains("shape") ? entry["shape"] : Json());
    const Json offsets = entry.contains("data_offsets") ? entry["data_offsets"] : Json();
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
        refuse(path, "tensor '" + name + "' has data_offsets " + offsets.dump(), offsets_rule);
    const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    const std::string range = "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end) refuse(path, "tensor '" + name + "' has data_offsets " + range, offsets_rule);
    if (end > data_size)
        refuse(path, "tensor '" + name + "' has data_offsets " + range + " but the data is " + std::to_string(data_size) +
                         " bytes (a truncated file?)",
               offsets_rule);
    if (end - begin != byte_count(shape, data_size))
        refuse(path, "tensor '" + name + "' of shape " + shape.str() + " has " + std::to_string(end - begin) + " bytes",
               offsets_rule);
    Tensor tensor = Tensor::uninitialized(shape);
    if (end > begin) std::memcpy(tensor.data(), data + begin, end - begin);
    return tensor;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const Json& entry) {
    const std::string rule = "__metadata__ must map names to strings";
    if (!entry.is_object()) refuse(path, "__metadata__ is not an object", rule);
    std::map<std::string, std::string> metadata;
    for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) refuse(path, "__metadata__ entry '" + key + "' is not a string", rule);
        metadata[key] = value.get<std::string>();
    }
    return metadata;
}

}  // namespace

WeightsFile read_weights_file(const std::string& path) { return parse_weights_file(read_whole_file(path), path); }

WeightsFile parse_weights_file(std::string_view bytes, const std::string& path) {
    if (bytes.size() < 8)
        refuse(path, "it is " + std::to_string(bytes.size()) + " bytes, too short for a header length", layout);
    uint64_t header_size = 0;
    std::memcpy(&header_size, bytes.data(), 8);
    const uint64_t after_length = bytes.size() - 8;
    if (header_size > after_length)
        refuse(path, "the header length " + std::to_string(header_size) + " is larger than the " +
                         std::to_string(after_length) + " bytes that follow it",
               layout);
    Json header;
    try {
        header = Json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size));
    } catch (const Json::parse_error& e) {
        refuse(path, "the header is not valid JSON (at byte " + std::to_string(e.byte) + " of " +
                         std::to_string(header_size) + ")",
               layout);
    } catch (const Json::exception& e) {  // e.g. a number past a double's range (found by make fuzz)
        refuse(path, std::string("the header's JSON cannot be read (") + e.what() + ")", layout);
    }
    if (!header.is_object()) refuse(path, "the header is JSON but not an object", layout);

    WeightsFile file;
    const char* data = bytes.data() + 8 + header_size;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") file.metadata = parse_metadata(path, entry);
        else file.tensors.emplace(name, parse_tensor(path, name, entry, data, after_length - header_size));
    }
    return file;
}

void write_weights_file(const std::string& path, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata) {
    Json header = Json::object();
    uint64_t offset = 0;
    for (const auto& [name, tensor] : tensors) {
        if (name == "__metadata__" || header.contains(name))
            throw std::invalid_argument("weights file '" + path + "': the tensor name '" + name + "' is " +
                                        (header.contains(name) ? "used twice" : "reserved"));
        std::vector<int64_t> sizes;
        for (int axis = 0; axis < tensor.rank(); ++axis) sizes.push_back(tensor.size(axis));
        const uint64_t bytes = static_cast<uint64_t>(tensor.numel()) * 4;
        header[name] = {{"dtype", "F32"}, {"shape", sizes}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as safetensors recommends
    const uint64_t header_size = text.size();

    std::vector<std::string_view> pieces = {{reinterpret_cast<const char*>(&header_size), 8}, text};
    for (const auto& [name, tensor] : tensors)
        pieces.emplace_back(reinterpret_cast<const char*>(tensor.data()), static_cast<size_t>(tensor.numel()) * 4);
    write_file_atomically(path, pieces);  // "cannot write PATH: why" on a failure
}

void save_weights(const std::string& path, const Module& module, const NamedTensors& extra,
                  const std::map<std::string, std::string>& metadata) {
    NamedTensors tensors;
    for (const auto& [name, parameter] : module.named_parameters()) tensors.emplace_back(name, parameter.value());
    tensors.insert(tensors.end(), extra.begin(), extra.end());
    write_weights_file(path, tensors, metadata);
}

void load_parameters(Module& module, const WeightsFile& file, const std::string& path) {
    auto parameters = module.named_parameters();
    for (const auto& [name, parameter] : parameters) {
        const auto found = file.tensors.find(name);
        if (found == file.tensors.end())
            refuse(path, "it has no tensor '" + name + "'",
                   "it must hold each of the model's " + std::to_string(parameters.size()) + " parameters by name");
        if (found->second.shape() != parameter.shape())
            refuse(path, "tensor '" + name + "' has shape " + found->second.shape().str() + ", the model's is " +
                             parameter.shape().str(),
                   "weights load only into a model of the same sizes");
        if (!all_finite(found->second))
            refuse(path, "tensor '" + name + "' holds NaN or infinity", "weights must be finite");
    }
    for (auto& [name, parameter] : parameters) parameter.value() = file.tensors.at(name);
}

std::map<std::string, std::string> load_weights(const std::string& path, Module& module) {
    WeightsFile file = read_weights_file(path);
    const auto parameters = module.named_parameters();
    for (const auto& entry : file.tensors) {
        const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
        const auto named = [&](const auto& parameter) { return parameter.first == name; };
        if (std::none_of(parameters.begin(), parameters.end(), named))
            refuse(path, "tensor '" + name + "' is not a parameter of this model",
                   "it must hold the model's parameters and nothing else (saved with another scheme?)");
    }
    load_parameters(module, file, path);
    return std::move(file.metadata);
}

}  // namespace wai
