// Weight files: the safetensors reader with its checks, and the atomic writer. A file is judged by what it says before it is read
// whole: its size, then its header length and header, every check a comparison with that size, and
// only then the data the header describes, straight into the tensors; a read that comes up short is
// "the file changed while it was read", so no check can be skipped by a short read. The rules are the
// reference implementation's (huggingface/safetensors, safetensors/src/tensor.rs: read_metadata and
// Metadata::validate), with duplicate names and unknown keys refused as well. The header's JSON is
// read by files/weights_header_json.cpp.
// Leaves out streaming files larger than memory, and a module's names in the two layouts with saving
// and loading a module (files/weights_layout.cpp).
#include "files/weights_file.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "files/atomic_file.hpp"
#include "files/weights_header_json.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

static_assert(std::endian::native == std::endian::little, "weight files are read by copying little-endian bytes");

namespace {

using Json = nlohmann::json;
using weights_header::layout;
using weights_header::refuse;

const char* const entry_rule = "each tensor is exactly {\"dtype\", \"shape\", \"data_offsets\"}";
const char* const offsets_rule =
    "data_offsets must be [begin, end] with begin <= end <= the size of the data and end - begin = 4 bytes x the "
    "number of elements";
const char* const coverage_rule =
    "sorted by offset, the tensors' data_offsets must run from 0 to the end of the file, with no hole and no overlap";

// The shape of one header entry: 0 to 4 sizes, each a non-negative integer. With a zero among them,
// the others must still multiply to less than 2^63: the tensor has no numbers, so no byte count
// refuses it, but Shape::numel multiplies in order and [2^62, 2^62, 0] overflowed before it reached
// the zero (found by make fuzz). Without a zero, a product that large is refused by its byte count.
Shape parse_shape(const std::string& path, const std::string& name, const Json& sizes) {
    const std::string rule = "a shape is a list of 0 to 4 non-negative integers";
    if (!sizes.is_array()) refuse(path, "tensor '" + name + "' has shape " + sizes.dump(), rule);
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

// One header entry, checked on its own: where its bytes are and what shape they make.
struct Entry {
    std::string name;
    Shape shape;
    uint64_t begin = 0, end = 0;
};

std::string range_text(const Entry& e) { return "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]"; }

Entry parse_entry(const std::string& path, const std::string& name, const Json& entry, uint64_t data_size) {
    if (!entry.is_object()) refuse(path, "header entry '" + name + "' is not an object", entry_rule);
    for (const auto& item : entry.items())
        if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
            refuse(path, "tensor '" + name + "' has the key '" + item.key() + "'", entry_rule);
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (!entry.contains(key)) refuse(path, "tensor '" + name + "' has no " + key, entry_rule);
    if (!entry["dtype"].is_string()) refuse(path, "tensor '" + name + "' has dtype " + entry["dtype"].dump(), "only F32 is accepted");
    if (entry["dtype"] != "F32")
        refuse(path, "tensor '" + name + "' has dtype " + entry["dtype"].get<std::string>(), "only F32 is accepted");
    Entry parsed;
    parsed.name = name;
    parsed.shape = parse_shape(path, name, entry["shape"]);
    const Json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
        refuse(path, "tensor '" + name + "' has data_offsets " + offsets.dump(), offsets_rule);
    parsed.begin = offsets[0].get<uint64_t>(), parsed.end = offsets[1].get<uint64_t>();
    if (parsed.begin > parsed.end) refuse(path, "tensor '" + name + "' has data_offsets " + range_text(parsed), offsets_rule);
    if (parsed.end > data_size)
        refuse(path, "tensor '" + name + "' has data_offsets " + range_text(parsed) + " but the data is " +
                         std::to_string(data_size) + " bytes (a truncated file?)",
               offsets_rule);
    if (parsed.end - parsed.begin != byte_count(parsed.shape, data_size))
        refuse(path, "tensor '" + name + "' of shape " + parsed.shape.str() + " has " +
                         std::to_string(parsed.end - parsed.begin) + " bytes",
               offsets_rule);
    return parsed;
}

// The entries, sorted by offset as the reference sorts them, must tile the data exactly: each begins
// where the one before it ends, the first at 0, the last at the end of the file.
void check_coverage(const std::string& path, const std::vector<Entry>& sorted, uint64_t data_size) {
    uint64_t covered = 0;
    const Entry* previous = nullptr;
    for (const Entry& e : sorted) {
        if (e.begin > covered)
            refuse(path,
                   (previous ? "tensor '" + e.name + "' begins at byte " + std::to_string(e.begin) + " of the data but '" +
                                   previous->name + "' before it ends at " + std::to_string(covered)
                             : "the first tensor, '" + e.name + "', begins at byte " + std::to_string(e.begin) + " of the data") +
                       ": " + std::to_string(e.begin - covered) + " bytes belong to no tensor (a hole)",
                   coverage_rule);
        if (e.begin < covered)
            refuse(path,
                   "tensor '" + e.name + "' (data_offsets " + range_text(e) + ") overlaps '" + previous->name +
                       "' (data_offsets " + range_text(*previous) + ")",
                   coverage_rule);
        covered = e.end;
        previous = &e;
    }
    if (covered != data_size)
        refuse(path,
               "the tensors' data ends at byte " + std::to_string(covered) + " but " + std::to_string(data_size) +
                   " bytes follow the header: " + std::to_string(data_size - covered) + " trailing bytes",
               coverage_rule);
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

// The header length, checked against the file's size before anything else is read or allocated.
void check_header_length(const std::string& path, uint64_t header_size, uint64_t after_length) {
    if (header_size > max_header_bytes)
        refuse(path, "the header length " + std::to_string(header_size) + " is larger than the " +
                         std::to_string(max_header_bytes) + " bytes safetensors allows",
               layout);
    if (header_size > after_length)
        refuse(path, "the header length " + std::to_string(header_size) + " is larger than the " +
                         std::to_string(after_length) + " bytes that follow it",
               layout);
}

// What a header says, every entry checked against the data's size: the entries in the order of
// their data, and the metadata. Nothing of the data is needed for this.
struct Described {
    std::vector<Entry> entries;
    std::map<std::string, std::string> metadata;
};

Described parse_described(std::string_view header_bytes, const std::string& path, uint64_t data_size) {
    const Json header = weights_header::parse(header_bytes, path);
    if (!header.is_object()) refuse(path, "the header is JSON but not an object", layout);
    Described described;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") described.metadata = parse_metadata(path, entry);
        else described.entries.push_back(parse_entry(path, name, entry, data_size));
    }
    std::sort(described.entries.begin(), described.entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
    });
    check_coverage(path, described.entries, data_size);
    return described;
}

// Each entry's tensor, its bytes filled by `fill(entry, destination)`, in the order of the data.
template <typename Fill>
WeightsFile tensors_of(Described described, const std::string& path, uint64_t data_size, Fill fill) {
    WeightsFile file;
    file.metadata = std::move(described.metadata);
    try {
        for (const Entry& e : described.entries) {
            Tensor tensor = Tensor::uninitialized(e.shape);
            if (e.end > e.begin) fill(e, reinterpret_cast<char*>(tensor.data()));
            file.tensors.emplace(e.name, std::move(tensor));
            file.order.push_back(e.name);
        }
    } catch (const std::bad_alloc&) {  // the file's own sizes, not the run's, asked for this memory
        throw std::runtime_error("weights file '" + path + "': out of memory: its tensors hold " + std::to_string(data_size) +
                                 " bytes, more than the machine has or its limits allow (ulimit -v)");
    }
    return file;
}

}  // namespace

std::string nul_shown(std::string text) {
    for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 4)) text.replace(at, 1, "\\x00");
    return text;
}

namespace {

// A file read from its start, each read checked against the size taken when it was opened.
class SizedReader {
  public:
    explicit SizedReader(const std::string& path) : path_(path) {
        // A FIFO, a device or a folder has no size to judge the file by (file_size answers "Operation
        // not supported" for the first two): named for what it is.
        namespace fs = std::filesystem;
        std::error_code error;
        const fs::file_type type = fs::status(path, error).type();
        const char* kind = type == fs::file_type::directory ? "a folder"
                           : type == fs::file_type::fifo    ? "a FIFO (named pipe)"
                           : type == fs::file_type::character || type == fs::file_type::block ? "a device"
                           : type == fs::file_type::socket ? "a socket"
                                                           : nullptr;
        if (!error && kind != nullptr)
            throw std::runtime_error("weights file '" + path + "': it is " + kind +
                                     ", not a file; a weights file is a regular file (safetensors)");
        size = std::filesystem::file_size(path, error);
        if (error) throw std::runtime_error("weights file '" + path + "': cannot read it (" + error.message() + ")");
        in_.open(path, std::ios::binary);
        if (!in_) throw std::runtime_error("weights file '" + path + "': cannot read it (" + std::strerror(errno) + ")");
    }
    void read(char* destination, uint64_t count) {
        if (!in_.read(destination, static_cast<std::streamsize>(count)))
            throw std::runtime_error("weights file '" + path_ + "': the file changed while it was read: it was " +
                                     std::to_string(size) + " bytes, and ended after " +
                                     std::to_string(read_so_far_ + static_cast<uint64_t>(in_.gcount())));
        read_so_far_ += count;
    }
    uint64_t size = 0;

  private:
    std::string path_;
    std::ifstream in_;
    uint64_t read_so_far_ = 0;
};

// The header length (against the size), then the header, every entry checked against the size of the
// data that follows it (data_size). The file is left at the start of its data.
Described read_described(SizedReader& file, const std::string& path, uint64_t& data_size) {
    if (file.size < 8) {  // too short for a header length: the refusal names its size
        std::string bytes(file.size, '\0');
        file.read(bytes.data(), file.size);
        parse_weights_file(bytes, path);  // refuses it
        throw std::logic_error("a file of " + std::to_string(file.size) + " bytes was not refused");
    }
    uint64_t header_size = 0;
    file.read(reinterpret_cast<char*>(&header_size), 8);
    check_header_length(path, header_size, file.size - 8);
    std::string header(header_size, '\0');
    file.read(header.data(), header_size);
    data_size = file.size - 8 - header_size;
    return parse_described(header, path, data_size);
}

}  // namespace

// The file is judged by what it says before it is read whole: its size first, then the 8-byte header
// length (against the size), then the header (every entry against the size: offsets, coverage,
// trailing bytes), and only then the data the header describes, read straight into the tensors. A
// file that is shorter than its size said when a read comes ("the file changed while it was read")
// is refused; bytes added after the size was taken are never read.
WeightsFile read_weights_file(const std::string& path) {
    SizedReader file(path);
    uint64_t data_size = 0;
    Described described = read_described(file, path, data_size);
    return tensors_of(std::move(described), path, data_size,
                      [&](const Entry& e, char* destination) { file.read(destination, e.end - e.begin); });
}

// The same, up to the data, which is never read.
std::map<std::string, std::string> read_weights_metadata(const std::string& path) {
    SizedReader file(path);
    uint64_t data_size = 0;
    return read_described(file, path, data_size).metadata;
}

WeightsFile parse_weights_file(std::string_view bytes, const std::string& path) {
    if (bytes.size() < 8)
        refuse(path, "it is " + std::to_string(bytes.size()) + " bytes, too short for a header length", layout);
    uint64_t header_size = 0;
    std::memcpy(&header_size, bytes.data(), 8);
    check_header_length(path, header_size, bytes.size() - 8);
    const uint64_t data_size = bytes.size() - 8 - header_size;
    const char* data = bytes.data() + 8 + header_size;
    return tensors_of(parse_described(bytes.substr(8, header_size), path, data_size), path, data_size,
                      [&](const Entry& e, char* destination) { std::memcpy(destination, data + e.begin, e.end - e.begin); });
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

}  // namespace wai
