// Tests of files/weights_file, the safetensors reader and writer: a model's weights, extra tensors and
// metadata survive a round trip; every kind of bad file is refused with a message naming the file,
// the fault and what is accepted, its header alone too (read_weights_metadata); a file that does not fit the model leaves the model alone; what
// the format allows (any name order, space padding, empty tensors) is read.
// Leaves out runs saving and loading (tests/test_weights_runs.cpp), the programs
// (tests/test_weights_programs.cpp), PyTorch's golden files (tests/test_golden.cpp) and fuzzing (tests/fuzz/).
#include "tests/catch.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/transformer.hpp"
#include "files/weights_file.hpp"
#include "tests/helpers.hpp"
#include "tests/programs.hpp"
#include "tests/weights_fixtures.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

TEST_CASE("weights file: a model, extra tensors and metadata survive a round trip", "[weights_file]") {
    TemporaryFile file("round_trip.safetensors");
    SmallModel saved(1);
    const NamedTensors extra{{"loss", Tensor::scalar(0.25f)}, {"batch", Tensor::full(Shape{2, 3}, 7.0f)}};
    save_weights(file.path, saved.model, extra, {{"task", "lag"}, {"note", "a \"quoted\" value"}});
    CHECK_FALSE(std::filesystem::exists(file.path + ".tmp"));  // written aside, then renamed

    const WeightsFile read = read_weights_file(file.path);
    CHECK(read.metadata == std::map<std::string, std::string>{{"task", "lag"}, {"note", "a \"quoted\" value"}});
    CHECK(read.tensors.size() == saved.model.named_parameters().size() + 2);
    CHECK(read.tensors.at("loss").shape() == Shape{});
    CHECK(read.tensors.at("loss").item() == 0.25f);
    CHECK(same_numbers(read.tensors.at("batch"), extra[1].second));

    SmallModel loaded(2);  // different initial numbers, replaced by the file's
    load_parameters(loaded.model, read, file.path);
    const auto expected = saved.model.named_parameters();
    const auto actual = loaded.model.named_parameters();
    for (size_t i = 0; i < expected.size(); ++i) {
        INFO(expected[i].first);
        CHECK(same_numbers(actual[i].second.value(), expected[i].second.value()));
    }

    // load_weights wants exactly the model's parameters: the extra tensors are refused, the first in the file named.
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               ContainsSubstring("tensor 'loss' is not a parameter of this model"));
    save_weights(file.path, saved.model, {}, {{"scheme", "learned"}});
    CHECK(load_weights(file.path, loaded.model) == std::map<std::string, std::string>{{"scheme", "learned"}});
}

TEST_CASE("weights file: read_weights_metadata reads the header alone, with every check read_weights_file makes on it",
          "[weights_file]") {
    TemporaryFile file("metadata.safetensors");
    SmallModel saved(1);
    save_weights(file.path, saved.model, {}, {{"task", "lag"}, {"scheme", "rope"}});
    CHECK(read_weights_metadata(file.path) == std::map<std::string, std::string>{{"task", "lag"}, {"scheme", "rope"}});
    // The data is never read: numbers that are no floats' pass (read_weights_file would read them as they are).
    const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"seed":"3"}})";
    write_bytes(file.path, file_bytes(header, "garbage!"));
    CHECK(read_weights_metadata(file.path) == std::map<std::string, std::string>{{"seed", "3"}});
    // A header that read_weights_file refuses is refused the same way, the data's size counted.
    const std::pair<std::string, std::string> refused[] = {
        {"garbage\n", "is larger than the 100000000 bytes safetensors allows"},
        {"abc", "it is 3 bytes, too short for a header length"},
        {file_bytes(header, "1234"), "but the data is 4 bytes (a truncated file?)"},
        {file_bytes(header, "123456789"), "1 trailing bytes"},
        {file_bytes("{\"w\":", ""), "the header is not valid JSON"},
    };
    for (const auto& [bytes, message] : refused) {
        INFO(message);
        write_bytes(file.path, bytes);
        const std::string from_header = message_of<std::runtime_error>([&] { read_weights_metadata(file.path); });
        CHECK_THAT(from_header, ContainsSubstring(message));
        CHECK(from_header == message_of<std::runtime_error>([&] { read_weights_file(file.path); }));
    }
    CHECK_THAT(message_of<std::runtime_error>([&] { read_weights_metadata(file.path + ".absent"); }),
               ContainsSubstring("cannot read it"));
}

TEST_CASE("weights file: a bad file is refused with its name, the fault and what is accepted", "[weights_file]") {
    TemporaryFile file("bad.safetensors");
    const std::string eight_bytes(8, '\0');  // two float zeros
    const std::string good = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    write_bytes(file.path, file_bytes(good, eight_bytes));  // each case below is this file with one fault
    CHECK(read_weights_file(file.path).tensors.at("w").shape() == Shape{2});
    struct Case {
        const char* fault;
        std::string bytes;
        const char* message;
    };
    const Case cases[] = {
        {"shorter than a header length", "abc", "3 bytes, too short for a header length"},
        {"header length past the end", file_bytes(good, eight_bytes, 1000), "the header length 1000 is larger than"},
        {"header length near 2^64", file_bytes(good, eight_bytes, std::numeric_limits<uint64_t>::max()), "is larger than"},
        {"header not JSON", file_bytes("{\"w\": [1, 2", eight_bytes), "the header is not valid JSON"},
        {"header a JSON list", file_bytes("[1, 2, 3]", ""), "the header is JSON but not an object"},
        {"dtype F16", file_bytes(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'w' has dtype F16; only F32 is accepted"},
        {"no dtype", file_bytes(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", eight_bytes), "tensor 'w' has no dtype"},
        {"negative size", file_bytes(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'w' has shape [-2]; a shape is a list of 0 to 4 non-negative integers"},
        {"rank 5", file_bytes(R"({"w":{"dtype":"F32","shape":[1,1,1,1,2],"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'w' has rank 5"},
        {"truncated data", file_bytes(good, "1234"), "data_offsets [0, 8] but the data is 4 bytes (a truncated file?)"},
        {"end before begin", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight_bytes),
         "data_offsets [8, 0]"},
        {"offsets not a pair", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight_bytes),
         "tensor 'w' has data_offsets [0]"},
        {"bytes and shape disagree", file_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'w' of shape (3) has 8 bytes"},
        {"a shape too large for any file",
         file_bytes(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight_bytes),
         "of shape (4294967296, 4294967296) has 8 bytes"},
        {"metadata not strings", file_bytes(R"({"__metadata__":{"steps":2000}})", ""),
         "__metadata__ entry 'steps' is not a string"},
        {"metadata not an object", file_bytes(R"({"__metadata__":["task","lag"]})", ""), "__metadata__ is not an object"},
        {"a header over safetensors' limit", file_bytes(good, eight_bytes, 100'000'001),
         "the header length 100000001 is larger than the 100000000 bytes safetensors allows"},
        {"a name given twice", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                          R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight_bytes),
         "the name 'w' is given twice in the header"},
        {"metadata given twice", file_bytes(R"({"__metadata__":{},"__metadata__":{"a":"b"}})", ""),
         "the name '__metadata__' is given twice"},
        {"a key given twice in an entry",
         file_bytes(R"({"w":{"dtype":"F32","shape":[2],"shape":[2],"data_offsets":[0,8]}})", eight_bytes),
         "the key 'shape' is given twice in one object of the header"},
        {"a metadata key given twice", file_bytes(R"({"__metadata__":{"task":"lag","task":"seen"}})", ""),
         "the key 'task' is given twice"},
        {"an extra key", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"offsets":[0,8]}})", eight_bytes),
         "tensor 'w' has the key 'offsets'; each tensor is exactly {\"dtype\", \"shape\", \"data_offsets\"}"},
        {"no shape", file_bytes(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", eight_bytes), "tensor 'w' has no shape"},
        {"no data_offsets", file_bytes(R"({"w":{"dtype":"F32","shape":[2]}})", eight_bytes),
         "tensor 'w' has no data_offsets"},
        {"shape not a list", file_bytes(R"({"w":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'w' has shape 2"},
        {"overlapping tensors", file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                           R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", std::string(12, '\0')),
         "tensor 'b' (data_offsets [4, 12]) overlaps 'a' (data_offsets [0, 8])"},
        {"the same bytes twice", file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight_bytes),
         "tensor 'b' (data_offsets [0, 8]) overlaps 'a'"},
        {"an empty tensor inside another", file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                                      R"("b":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})", eight_bytes),
         "tensor 'b' (data_offsets [4, 4]) overlaps 'a'"},
        {"a hole", file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})", std::string(20, '\0')),
         "tensor 'b' begins at byte 12 of the data but 'a' before it ends at 8: 4 bytes belong to no tensor (a hole)"},
        {"a hole at the start", file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", std::string(12, '\0')),
         "the first tensor, 'w', begins at byte 4 of the data: 4 bytes belong to no tensor (a hole)"},
        {"trailing bytes", file_bytes(good, eight_bytes + "junk"),
         "the tensors' data ends at byte 8 but 12 bytes follow the header: 4 trailing bytes"},
        {"data but no tensors", file_bytes("{}", eight_bytes), "the tensors' data ends at byte 0 but 8 bytes follow"},
        {"padded with NULs", file_bytes(good + std::string(4, '\0'), eight_bytes),
         "the header is not valid JSON (a NUL byte at byte 54 of 58)"},
        {"anything after a NUL", file_bytes(good + std::string(1, '\0') + "}{", eight_bytes),
         "the header is not valid JSON (a NUL byte at byte 54 of 57)"},
        {"nested too deep", file_bytes(R"({"w":{"dtype":"F32","shape":)" + std::string(200, '[') + std::string(200, ']') +
                                           R"(,"data_offsets":[0,0]}})", ""),
         "the header nests lists and objects more than 128 levels deep"},
    };
    for (const Case& c : cases) {
        INFO(c.fault);
        write_bytes(file.path, c.bytes);
        const std::string message = message_of<std::runtime_error>([&] { read_weights_file(file.path); });
        CHECK_THAT(message, StartsWith("weights file '" + file.path + "': "));
        CHECK_THAT(message, ContainsSubstring(c.message));
        CHECK_THAT(message, ContainsSubstring("; "));  // then what is accepted
    }
    CHECK_THAT(message_of<std::runtime_error>([] { read_weights_file("/nonexistent/weights.safetensors"); }),
               ContainsSubstring("weights file '/nonexistent/weights.safetensors': cannot read it"));
    CHECK_THAT(message_of<std::runtime_error>([] { write_weights_file("/nonexistent/weights.safetensors", {}); }),
               ContainsSubstring("cannot write /nonexistent/weights.safetensors: the folder '/nonexistent' does not exist"));
}

TEST_CASE("weights file: a file that does not fit the model is refused, and the model left alone", "[weights_file]") {
    TemporaryFile file("mismatch.safetensors");
    SmallModel model(3);
    const Tensor before = model.model.head.bias.value();

    SmallModel wider(4, /*dim=*/16);
    save_weights(file.path, wider.model);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               ContainsSubstring("tensor 'tokens.weight' has shape (5, 16), the model's is (5, 8)"));

    NamedTensors missing_head;
    for (const auto& [name, p] : model.model.named_parameters())
        if (name != "head.bias") missing_head.emplace_back(name, p.value());
    write_weights_file(file.path, missing_head);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               ContainsSubstring("it has no tensor 'head.bias'"));

    NamedTensors not_finite = missing_head;
    not_finite.emplace_back("head.bias", Tensor::full(Shape{3}, std::numeric_limits<float>::quiet_NaN()));
    write_weights_file(file.path, not_finite);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               ContainsSubstring("tensor 'head.bias' holds NaN or infinity"));
    CHECK(same_numbers(model.model.head.bias.value(), before));
}

TEST_CASE("weights file: what safetensors allows is read: any name order, space padding, empty tensors",
          "[weights_file]") {
    TemporaryFile file("allowed.safetensors");
    std::string data(16, '\0');
    const float numbers[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    std::memcpy(data.data(), numbers, 16);
    // 'b' holds the first bytes, 'a' the next; 'e' and 'z' hold none, at either end; trailing spaces pad the header.
    write_bytes(file.path, file_bytes(R"({"z":{"dtype":"F32","shape":[0],"data_offsets":[16,16]},)"
                                      R"("a":{"data_offsets":[8,16],"shape":[2],"dtype":"F32"},)"
                                      R"("__metadata__":{"task":"lag"},)"
                                      R"("b":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},)"
                                      R"("e":{"dtype":"F32","shape":[3,0],"data_offsets":[0,0]}}   )",
                                      data));
    const WeightsFile read = read_weights_file(file.path);
    CHECK(read.order == std::vector<std::string>{"e", "b", "a", "z"});  // by offset, as in the file
    CHECK(read.tensors.at("b").shape() == Shape{1, 2});
    CHECK(read.tensors.at("b")[1] == 2.0f);
    CHECK(read.tensors.at("a")[0] == 3.0f);
    CHECK(read.tensors.at("e").numel() == 0);
    CHECK(read.metadata.at("task") == "lag");

    write_bytes(file.path, file_bytes("{}", ""));  // no tensors at all
    CHECK(read_weights_file(file.path).tensors.empty());

    // The depth limit refuses nothing a shape can be refused for: 126 nested lists in a shape (128
    // levels with the header and the entry) are refused for their shape, one more for the nesting.
    for (const int lists : {126, 127}) {
        INFO(lists << " nested lists");
        write_bytes(file.path, file_bytes(R"({"w":{"dtype":"F32","shape":)" + std::string(lists, '[') +
                                              std::string(lists, ']') + R"(,"data_offsets":[0,0]}})",
                                          ""));
        CHECK_THAT(message_of<std::runtime_error>([&] { read_weights_file(file.path); }),
                   ContainsSubstring(lists == 126 ? "tensor 'w' has shape [[[" : "more than 128 levels deep"));
    }
}
