// Tests of tasks/weights_file: a model's weights, extra tensors and metadata survive a round trip; every
// kind of bad file is refused with a message naming the file and the fault, in-process and through
// train_position (one line, exit code 1); the two layouts of names map onto each other; a run saved and
// loaded again evaluates to the same accuracies; and ([roundtrip]) the chapter's PyTorch model and ours
// read each other's files to the same logits (tests/reference/roundtrip.py, skipped without torch).
// Leaves out PyTorch's golden files (tests/test_golden.cpp) and fuzzing (tests/fuzz/).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/transformer.hpp"
#include "positional/make_position.hpp"
#include "tasks/experiment.hpp"
#include "tasks/weights_file.hpp"
#include "tests/helpers.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// A file in the temporary folder, removed at the end of the test that made it.
struct TemporaryFile {
    std::string path;
    explicit TemporaryFile(const std::string& name)
        : path((std::filesystem::temp_directory_path() /
                ("whereami_test_" + std::to_string(getpid()) + "_" + name)).string()) {}
    ~TemporaryFile() { std::filesystem::remove(path); }
};

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file by hand: the 8-byte little-endian length of `header`, `header`, then `data`.
std::string file_bytes(const std::string& header, const std::string& data, uint64_t header_length) {
    std::string bytes(8, '\0');
    std::memcpy(bytes.data(), &header_length, 8);
    return bytes + header + data;
}
std::string file_bytes(const std::string& header, const std::string& data) {
    return file_bytes(header, data, header.size());
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

bool same_numbers(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.numel() * sizeof(float)) == 0;
}

}  // namespace

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
               Contains("tensor 'loss' is not a parameter of this model"));
    save_weights(file.path, saved.model, {}, {{"scheme", "learned"}});
    CHECK(load_weights(file.path, loaded.model) == std::map<std::string, std::string>{{"scheme", "learned"}});
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
        CHECK_THAT(message, Contains(c.message));
        CHECK_THAT(message, Contains("; "));  // then what is accepted
    }
    CHECK_THAT(message_of<std::runtime_error>([] { read_weights_file("/nonexistent/weights.safetensors"); }),
               Contains("weights file '/nonexistent/weights.safetensors': cannot read it"));
    CHECK_THAT(message_of<std::runtime_error>([] { write_weights_file("/nonexistent/weights.safetensors", {}); }),
               Contains("cannot write /nonexistent/weights.safetensors: the folder '/nonexistent' does not exist"));
}

TEST_CASE("weights file: a file that does not fit the model is refused, and the model left alone", "[weights_file]") {
    TemporaryFile file("mismatch.safetensors");
    SmallModel model(3);
    const Tensor before = model.model.head.bias.value();

    SmallModel wider(4, /*dim=*/16);
    save_weights(file.path, wider.model);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               Contains("tensor 'tokens.weight' has shape (5, 16), the model's is (5, 8)"));

    NamedTensors missing_head;
    for (const auto& [name, p] : model.model.named_parameters())
        if (name != "head.bias") missing_head.emplace_back(name, p.value());
    write_weights_file(file.path, missing_head);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               Contains("it has no tensor 'head.bias'"));

    NamedTensors not_finite = missing_head;
    not_finite.emplace_back("head.bias", Tensor::full(Shape{3}, std::numeric_limits<float>::quiet_NaN()));
    write_weights_file(file.path, not_finite);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, model.model); }),
               Contains("tensor 'head.bias' holds NaN or infinity"));
    CHECK(same_numbers(model.model.head.bias.value(), before));
}

TEST_CASE("run_experiment: --save, then --load with --steps 0 evaluates the same weights", "[weights_file][tasks]") {
    TemporaryFile trained_file("trained.safetensors"), reloaded_file("reloaded.safetensors");
    RunConfig config;
    config.scheme = "rope";
    config.steps = 3, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 4;
    config.save_path = trained_file.path;
    const RunResult trained = run_experiment(config);
    const WeightsFile saved = read_weights_file(trained_file.path);
    CHECK(saved.metadata.at("scheme") == "rope");

    // Evaluate only, starting from another seed's initial weights: the file's replace them all.
    RunConfig reload = config;
    reload.seed = 1;
    reload.steps = 0;
    reload.load_path = trained_file.path;
    reload.save_path = reloaded_file.path;
    const RunResult evaluated = run_experiment(reload);
    const WeightsFile resaved = read_weights_file(reloaded_file.path);
    REQUIRE(resaved.tensors.size() == saved.tensors.size());
    for (const auto& [name, tensor] : saved.tensors) {
        INFO(name);
        CHECK(same_numbers(resaved.tensors.at(name), tensor));
    }
    // The same weights on the same test sequences (seed 0's) give the same accuracies.
    reload.seed = 0;
    reload.save_path.clear();
    const RunResult same_seed = run_experiment(reload);
    CHECK(same_seed.accuracy == trained.accuracy);
    CHECK(same_seed.scaled_accuracy == trained.scaled_accuracy);
    CHECK(evaluated.accuracy.size() == trained.accuracy.size());
}

TEST_CASE("run_experiment refuses --steps 0 without --load, an unwritable --save, another scheme's weights",
          "[weights_file][tasks]") {
    RunConfig no_training;
    no_training.steps = 0;
    CHECK_THROWS_WITH(validate(no_training), Contains("0 is allowed with --load"));

    RunConfig nowhere;
    nowhere.save_path = "/nonexistent/weights.safetensors";
    CHECK_THROWS_WITH(validate(nowhere), Contains("the folder '/nonexistent' does not exist"));

    TemporaryFile file("rope.safetensors");
    RunConfig config;
    config.scheme = "rope";
    config.steps = 1, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 2;
    config.save_path = file.path;
    run_experiment(config);
    config.scheme = "none";  // the same parameters, so only the metadata can tell
    config.save_path.clear();
    config.load_path = file.path;
    CHECK_THAT(message_of<std::runtime_error>([&] { run_experiment(config); }),
               Contains("saved as lag rope; this run is lag none; load it into a run of the task and scheme it was saved as"));

    write_bytes(file.path, "not a weights file");
    CHECK_THAT(message_of<std::runtime_error>([&] { run_experiment(config); }), Contains("the header length"));
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
                   Contains(lists == 126 ? "tensor 'w' has shape [[[" : "more than 128 levels deep"));
    }
}

TEST_CASE("weights file: our names and the chapter's PyTorch model's map onto each other", "[weights_file]") {
    // Every parameter of a two-layer learned model, our name beside the chapter's (docs/design.md).
    const std::vector<std::pair<std::string, std::string>> table = {
        {"tokens.weight", "emb.weight"},
        {"position.weight", "pos.weight"},
        {"blocks.0.norm1.weight", "layers.0.n1.weight"},
        {"blocks.0.norm1.bias", "layers.0.n1.bias"},
        {"blocks.0.attention.qkv.weight", "layers.0.qkv.weight"},
        {"blocks.0.attention.qkv.bias", "layers.0.qkv.bias"},
        {"blocks.0.attention.output.weight", "layers.0.o.weight"},
        {"blocks.0.attention.output.bias", "layers.0.o.bias"},
        {"blocks.0.norm2.weight", "layers.0.n2.weight"},
        {"blocks.0.norm2.bias", "layers.0.n2.bias"},
        {"blocks.0.mlp.expand.weight", "layers.0.mlp.0.weight"},
        {"blocks.0.mlp.expand.bias", "layers.0.mlp.0.bias"},
        {"blocks.0.mlp.project.weight", "layers.0.mlp.2.weight"},
        {"blocks.0.mlp.project.bias", "layers.0.mlp.2.bias"},
        {"blocks.1.norm1.weight", "layers.1.n1.weight"},
        {"blocks.1.mlp.project.bias", "layers.1.mlp.2.bias"},
        {"blocks.12.attention.output.weight", "layers.12.o.weight"},
        {"head.weight", "out.weight"},
        {"head.bias", "out.bias"},
    };
    for (const auto& [ours, chapter] : table) {
        INFO(ours << " / " << chapter);
        CHECK(chapter_name(ours) == chapter);
        CHECK(name_from_chapter(chapter) == ours);
    }
    RunConfig config;
    config.scheme = "learned";
    const auto model = make_model(config);  // the chapter's sizes
    size_t named = 0;
    for (const auto& [name, parameter] : model->named_parameters()) {
        INFO(name);
        CHECK(name_from_chapter(chapter_name(name)) == name);
        named += std::count_if(table.begin(), table.end(), [&](const auto& row) { return row.first == name; });
    }
    CHECK(named == table.size() - 1);  // every row of the table but blocks.12's names a parameter of the model
    for (const char* neither : {"tokens.bias.x", "blocks.x.norm1.weight", "blocks.0.norm3.weight", "blocks..norm1.weight",
                                "layers.0.mlp.1.weight", "emb", "output.weight", "layers.0.attention.qkv.weight"}) {
        INFO(neither);
        CHECK(chapter_name(neither).empty());
        CHECK(name_from_chapter(neither).empty());
    }
    CHECK(parse_weights_layout("chapter", "--save-layout") == WeightsLayout::chapter);
    CHECK(parse_weights_layout("ours", "--save-layout") == WeightsLayout::ours);
    CHECK_THAT(invalid_argument_message([] { parse_weights_layout("pytorch", "--save-layout"); }),
               Contains("--save-layout must be ours or chapter (the chapter's PyTorch model's names), got 'pytorch'"));
}

TEST_CASE("weights file: a model saved in the chapter's layout loads back by its names alone", "[weights_file]") {
    TemporaryFile file("chapter_layout.safetensors");
    SmallModel saved(5);
    save_weights(file.path, saved.model, {}, {}, WeightsLayout::chapter);
    const WeightsFile read = read_weights_file(file.path);
    CHECK(read.tensors.count("layers.0.qkv.weight") == 1);
    CHECK(read.tensors.count("pos.weight") == 1);
    CHECK(read.tensors.count("blocks.0.attention.qkv.weight") == 0);
    CHECK(weights_layout(read, saved.model, file.path) == WeightsLayout::chapter);

    SmallModel loaded(6);
    load_weights(file.path, loaded.model);
    const auto expected = saved.model.named_parameters();
    const auto actual = loaded.model.named_parameters();
    for (size_t i = 0; i < expected.size(); ++i) {
        INFO(expected[i].first);
        CHECK(same_numbers(actual[i].second.value(), expected[i].second.value()));
    }

    // A file with one name from each layout, or a name from neither, is refused, naming it.
    NamedTensors mixed;
    for (const auto& [name, tensor] : read.tensors) mixed.emplace_back(name == "out.bias" ? "head.bias" : name, tensor);
    write_weights_file(file.path, mixed);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               Contains("it mixes two layouts: 'head.bias' is our name, 'emb.weight' the chapter's model's"));
    NamedTensors unknown = mixed;
    unknown.back().first = "layers.0.attn.weight";
    write_weights_file(file.path, unknown);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               Contains("tensor 'layers.0.attn.weight' is not a parameter of this model, by our names or the chapter's"));
    // In the chapter's layout, a missing parameter is named as the chapter names it.
    NamedTensors missing;
    for (const auto& [name, tensor] : read.tensors)
        if (name != "layers.0.n2.bias") missing.emplace_back(name, tensor);
    write_weights_file(file.path, missing);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               Contains("it has no tensor 'layers.0.n2.bias'"));
}

TEST_CASE("run_experiment: a file with no task and scheme loads only in the chapter's layout, and says so",
          "[weights_file][tasks]") {
    TemporaryFile ours("no_metadata_ours.safetensors"), chapter("no_metadata_chapter.safetensors");
    RunConfig config;
    config.scheme = "rope";
    config.steps = 0, config.dim = 8, config.layers = 1, config.mlp_hidden = 16, config.eval_sequences = 2;
    const auto model = make_model(config);
    save_weights(ours.path, *model);  // no metadata
    save_weights(chapter.path, *model, {}, {{"format", "pt"}}, WeightsLayout::chapter);

    config.load_path = ours.path;
    CHECK_THAT(message_of<std::runtime_error>([&] { run_experiment(config); }),
               Contains("its __metadata__ does not say the task and scheme it was saved as"));
    std::vector<std::string> notes;
    config.load_notice = [&](const std::string& note) { notes.push_back(note); };
    config.load_path = chapter.path;
    run_experiment(config);
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Contains("the chapter's PyTorch layout, with no task and scheme in its metadata: loaded as lag "
                                  "rope, this run's task and scheme"));

    // Saved in the chapter's layout by a run, it says what it was saved as, and is checked like ours.
    RunConfig save = config;
    save.load_path.clear();
    save.steps = 1, save.batch = 2, save.save_path = chapter.path, save.save_layout = WeightsLayout::chapter;
    run_experiment(save);
    CHECK(read_weights_file(chapter.path).metadata.at("scheme") == "rope");
    CHECK(read_weights_file(chapter.path).tensors.count("layers.0.qkv.weight") == 1);
    config.scheme = "rope:1000000";
    notes.clear();
    CHECK_THAT(message_of<std::runtime_error>([&] { run_experiment(config); }),
               Contains("saved as lag rope; this run is lag rope:1000000"));
    CHECK(notes.empty());

    RunConfig t5 = save;
    t5.scheme = "t5";
    CHECK_THAT(invalid_argument_message([&] { validate(t5); }), Contains("the chapter's PyTorch model has no t5 scheme"));
    t5.scheme = "rope";
    t5.save_path.clear();
    CHECK_THAT(invalid_argument_message([&] { validate(t5); }), Contains("--save-layout chapter needs --save FILE"));
}

// ---- through the real program ------------------------------------------------------------------

namespace {

const std::string build_dir = WAI_BUILD_DIR;  // build/, or build/address/ ... for a sanitizer build
const std::string source_dir = WAI_SOURCE_DIR;

// A fresh folder for one test case, removed at its end.
struct TemporaryFolder {
    std::filesystem::path path;
    explicit TemporaryFolder(const std::string& name)
        : path(std::filesystem::temp_directory_path() / ("whereami_weights_" + std::to_string(getpid()) + "_" + name)) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TemporaryFolder() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string shell_quoted(const std::string& text) {  // for sh: '...' with each ' written as '\''
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct Outcome {
    int status = -1;  // the exit code, or 128 + the signal
    std::string out, err;
};

// `command` (already quoted) run by sh with no input, its output collected.
Outcome run_command(const TemporaryFolder& folder, const std::string& command) {
    const std::string out = folder.file("run.out"), err = folder.file("run.err");
    const int raw = std::system((command + " </dev/null >" + shell_quoted(out) + " 2>" + shell_quoted(err)).c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), read_bytes(out), read_bytes(err)};
}

Outcome train_position(const TemporaryFolder& folder, const std::string& args) {
    std::string command = shell_quoted(build_dir + "/train_position");
    std::istringstream words(args);
    for (std::string word; words >> word;) command += " " + shell_quoted(word);
    return run_command(folder, command);
}

const std::string tiny = " --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2 --test-lens 32 --threads 1";

void check_refused(const Outcome& o, const std::string& path, const std::string& fragment) {
    INFO("stderr: " << o.err);
    CHECK(o.status == 1);
    CHECK(o.out.empty());
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_THAT(o.err, StartsWith("train_position: weights file '" + path + "': "));
    CHECK_THAT(o.err, Contains(fragment));
}

// A header nested `levels` deep at `where`: in a shape, in data_offsets, in the metadata, or as a tensor entry.
std::string deep_header(const std::string& where, int levels) {
    const std::string lists = std::string(levels, '[') + std::string(levels, ']');
    std::string objects;
    for (int i = 0; i < levels; ++i) objects += "{\"a\":";
    objects += "\"x\"" + std::string(levels, '}');
    if (where == "shape") return R"({"w":{"dtype":"F32","shape":)" + lists + R"(,"data_offsets":[0,0]}})";
    if (where == "data_offsets") return R"({"w":{"dtype":"F32","shape":[0],"data_offsets":)" + lists + "}}";
    if (where == "__metadata__") return R"({"__metadata__":)" + objects + "}";
    return R"({"w":)" + objects + "}";
}

}  // namespace

TEST_CASE("train_position --load: every kind of invalid or foreign weight file is one line and exit code 1",
          "[weights_file][cli]") {
    TemporaryFolder folder("refused");
    const std::string good = folder.file("good.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 2" + tiny + " --save " + good).status == 0);
    const WeightsFile saved = read_weights_file(good);
    NamedTensors tensors;
    for (const std::string& name : saved.order) tensors.emplace_back(name, saved.tensors.at(name));
    const auto with_metadata = [&](const std::map<std::string, std::string>& metadata) {
        std::map<std::string, std::string> changed = saved.metadata;
        for (const auto& [key, value] : metadata) changed[key] = value;
        return changed;
    };
    const std::string eight_bytes(8, '\0');
    const std::string entry = R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";

    struct Case {
        std::string name, run, message;
        std::function<void(const std::string&)> make;
    };
    const auto bytes = [](std::string b) { return [b](const std::string& path) { write_bytes(path, b); }; };
    const auto weights = [](NamedTensors t, std::map<std::string, std::string> m) {
        return [t, m](const std::string& path) { write_weights_file(path, t, m); };
    };
    NamedTensors unknown = tensors;
    unknown.emplace_back("blocks.0.attention.gate.weight", Tensor::zeros(Shape{2}));
    NamedTensors mixed = tensors;
    for (auto& [name, tensor] : mixed)
        if (name == "head.bias") name = "out.bias";
    std::vector<Case> cases = {
        {"deep_shape", "lag rope", "more than 128 levels deep", bytes(file_bytes(deep_header("shape", 60000), ""))},
        {"deep_offsets", "lag rope", "more than 128 levels deep", bytes(file_bytes(deep_header("data_offsets", 60000), ""))},
        {"deep_metadata", "lag rope", "more than 128 levels deep", bytes(file_bytes(deep_header("__metadata__", 30000), ""))},
        {"duplicate", "lag rope", "the name 'w' is given twice in the header",
         bytes(file_bytes("{" + entry + "," + entry + "}", eight_bytes))},
        {"overlap", "lag rope", "overlaps",
         bytes(file_bytes("{" + entry + R"(,"v":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight_bytes))},
        {"hole", "lag rope", "(a hole)",
         bytes(file_bytes("{" + entry + R"(,"v":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
                          std::string(16, '\0')))},
        {"trailing", "lag rope", "4 trailing bytes", bytes(read_bytes(good) + "junk")},
        {"not_object", "lag rope", "the header is JSON but not an object", bytes(file_bytes("[0, 8]", eight_bytes))},
        {"extra_key", "lag rope", "tensor 'w' has the key 'note'",
         bytes(file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"note":"x"}})", eight_bytes))},
        {"missing_key", "lag rope", "tensor 'w' has no dtype",
         bytes(file_bytes(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", eight_bytes))},
        {"metadata_number", "lag rope", "__metadata__ entry 'steps' is not a string",
         bytes(file_bytes("{" + entry + R"(,"__metadata__":{"steps":2}})", eight_bytes))},
        {"other_task", "lag rope", "saved as seen rope; this run is lag rope", weights(tensors, with_metadata({{"task", "seen"}}))},
        {"other_scheme", "lag rope", "saved as lag rope:1000000; this run is lag rope",
         weights(tensors, with_metadata({{"scheme", "rope:1000000"}}))},
        {"same_parameters_other_scheme", "lag none", "saved as lag rope; this run is lag none", weights(tensors, saved.metadata)},
        {"other_heads", "lag rope", "saved with --heads 2; this run has --heads 1; give the heads it was saved with",
         weights(tensors, with_metadata({{"heads", "2"}}))},
        {"no_metadata", "lag rope", "its __metadata__ does not say the task and scheme it was saved as", weights(tensors, {})},
        {"no_scheme", "lag rope", "its __metadata__ does not say", weights(tensors, {{"task", "lag"}})},
        {"unknown_tensor", "lag rope", "tensor 'blocks.0.attention.gate.weight' is not a parameter of this model",
         weights(unknown, saved.metadata)},
        {"mixed_layouts", "lag rope", "it mixes two layouts", weights(mixed, saved.metadata)},
        {"too_large_header", "lag rope", "is larger than the 100000000 bytes safetensors allows",
         bytes(file_bytes("{}", "", 200'000'000))},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = folder.file(c.name + ".safetensors");
        c.make(path);
        check_refused(train_position(folder, c.run + " 0 --steps 0" + tiny + " --load " + path), path, c.message);
    }
    // The file records the sizes its model is built from; heads, which its shapes cannot tell, are checked
    // on loading: saved with 2 heads, it loads with 2 and is refused with 1.
    CHECK(saved.metadata.at("heads") == "1");
    CHECK(saved.metadata.at("vocab") == "16");
    CHECK(saved.metadata.at("lag") == "3");
    CHECK(saved.metadata.at("train-len") == "32");
    const std::string two_heads = folder.file("two_heads.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 2" + tiny + " --heads 2 --save " + two_heads).status == 0);
    CHECK(read_weights_file(two_heads).metadata.at("heads") == "2");
    CHECK(read_weights_file(two_heads).metadata.at("dim") == saved.metadata.at("dim"));
    CHECK(train_position(folder, "lag rope 0 --steps 0" + tiny + " --heads 2 --load " + two_heads).status == 0);
    check_refused(train_position(folder, "lag rope 0 --steps 0" + tiny + " --load " + two_heads), two_heads,
                  "saved with --heads 2; this run has --heads 1");
    // The good file still loads, in our layout and in the chapter's.
    CHECK(train_position(folder, "lag rope 0 --steps 0" + tiny + " --load " + good).status == 0);
    const std::string chapter = folder.file("chapter.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 0" + tiny + " --load " + good + " --save-layout chapter --save " +
                                       chapter).status == 0);
    CHECK(read_weights_file(chapter).tensors.count("layers.0.o.weight") == 1);
    const Outcome loaded = train_position(folder, "lag rope 0 --steps 0" + tiny + " --load " + chapter);
    CHECK(loaded.status == 0);
    CHECK(loaded.err.empty());  // it says what it was saved as: nothing to note
    const Outcome bad_layout = train_position(folder, "lag rope 0" + tiny + " --save-layout torch --save " + chapter);
    CHECK(bad_layout.status == 2);
    CHECK_THAT(bad_layout.err, Contains("--save-layout must be ours or chapter"));
}

// ---- the chapter's PyTorch model, both ways ------------------------------------------------------

TEST_CASE("roundtrip: the chapter's PyTorch models load here, ours load there, to the same logits within 1e-5",
          "[weights_file][roundtrip]") {
    if (std::system("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1") != 0) {
        WARN("roundtrip skipped: /usr/bin/python3 cannot import torch and numpy (Debian packages python3-torch, python3-numpy)");
        return;
    }
    TemporaryFolder folder("roundtrip");
    const std::string script = shell_quoted("/usr/bin/python3") + " " + shell_quoted(source_dir + "/tests/reference/roundtrip.py");
    const Outcome made = run_command(folder, script + " torch " + shell_quoted(folder.path.string()));
    INFO(made.out << made.err);
    REQUIRE(made.status == 0);

    constexpr double tolerance = 1e-5;  // of the largest logit (error_on_scale, as tests/test_golden.cpp)
    for (const char* task : {"lag", "seen"})
        for (const std::string scheme : {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"}) {
            std::string stem = std::string(task) + "_" + scheme;
            std::replace(stem.begin(), stem.end(), ':', '-');
            INFO(stem);
            // PyTorch's state_dict, names unchanged and no metadata: the real program loads it as this run's model.
            const std::string torch_file = folder.file("torch_" + stem + ".safetensors");
            const Outcome evaluated =
                train_position(folder, std::string(task) + " " + scheme + " 0 --steps 0 --eval-seqs 4 --load " + torch_file);
            CHECK(evaluated.status == 0);
            CHECK_THAT(evaluated.err, Contains("the chapter's PyTorch layout, with no task and scheme in its metadata: "
                                               "loaded as " + std::string(task) + " " + scheme));
            // Its logits here (the chapter's sizes are the run's defaults) against PyTorch's.
            RunConfig config;
            config.task = task, config.scheme = scheme;
            const auto model = make_model(config);
            load_weights(torch_file, *model);
            const WeightsFile batch = read_weights_file(folder.file("torch_" + stem + ".logits.safetensors"));
            const Tensor& tokens = batch.tensors.at("tokens");  // (B, T)
            std::vector<int> ids(tokens.data(), tokens.data() + tokens.numel());
            NoGradScope no_grad;
            const double here = error_on_scale(model->forward(ids, tokens.size(0), tokens.size(1)).value(),
                                               batch.tensors.at("logits"));
            CHECK(here <= tolerance);

            // Ours, trained here and saved twice, in our layout and the chapter's (the same numbers): our
            // logits come from the first, PyTorch reads the second.
            const std::string train = std::string(task) + " " + scheme + " 0 --steps 4 --batch 8 --lr 1e-2 --eval-seqs 4";
            const std::string ours_file = folder.file("ours_" + stem + ".safetensors");
            REQUIRE(train_position(folder, train + " --save " + folder.file("same_in_our_layout.safetensors")).status == 0);
            REQUIRE(train_position(folder, train + " --save-layout chapter --save " + ours_file).status == 0);
            const auto trained = make_model(config);
            load_weights(folder.file("same_in_our_layout.safetensors"), *trained);
            write_weights_file(folder.file("ours_" + stem + ".logits.safetensors"),
                               {{"tokens", tokens}, {"logits", trained->forward(ids, tokens.size(0), tokens.size(1)).value()}});
        }
    const Outcome checked = run_command(folder, script + " check " + shell_quoted(folder.path.string()));
    INFO(checked.out << checked.err);
    CHECK(checked.status == 0);
    CHECK_THAT(checked.out, Contains("roundtrip: 14 whereami models loaded into the chapter's PyTorch model"));
}
