// Tests of tasks/weights_file: a model's weights, extra tensors and metadata survive a round trip; every
// kind of bad file is refused with a message naming the file and the fault; a run of the experiment
// saved and loaded again (train_position's --save and --load) evaluates to the same accuracies.
// Leaves out reading PyTorch's files, which tests/test_golden.cpp does.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

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

    // load_weights wants exactly the model's parameters: the extra tensors are refused.
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               Contains("tensor 'batch' is not a parameter of this model"));
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
               Contains("weights file '/nonexistent/weights.safetensors': cannot write it"));
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
               Contains("saved for scheme 'rope', this run's is 'none'; load it with the same task and scheme"));

    write_bytes(file.path, "not a weights file");
    CHECK_THAT(message_of<std::runtime_error>([&] { run_experiment(config); }), Contains("the header length"));
}
