// Weight files and runs (files/run_weights): a run saved and loaded again with --steps 0 evaluates to
// the same accuracies; a file saved for another task or scheme, or with no task and scheme in our
// layout, is refused; our names and the chapter's PyTorch model's map onto each other, and a file in
// the chapter's layout loads by its names alone (saying so when it has no metadata).
// Leaves out the format's rules (tests/test_weights_file.cpp) and the programs (tests/test_weights_programs.cpp).
#include "tests/catch.hpp"

#include <string>
#include <vector>

#include "nn/transformer.hpp"
#include "positional/make_position.hpp"
#include "files/run_weights.hpp"
#include "files/weights_file.hpp"
#include "tests/helpers.hpp"
#include "tests/programs.hpp"
#include "tests/weights_fixtures.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {
// A run with weight files, as train_position makes it: the files checked, then the run with their hooks.
RunResult run_with_files(const RunConfig& config, const RunFiles& files) {
    check_files(config, files);
    return run_experiment(config, {}, weights_hooks(config, files));
}
}  // namespace

TEST_CASE("run_experiment: --save, then --load with --steps 0 evaluates the same weights", "[weights_file][tasks]") {
    TemporaryFile trained_file("trained.safetensors"), reloaded_file("reloaded.safetensors");
    RunConfig config;
    config.scheme = "rope";
    config.steps = 3, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 4;
    RunFiles files;
    files.save_path = trained_file.path;
    const RunResult trained = run_with_files(config, files);
    const WeightsFile saved = read_weights_file(trained_file.path);
    CHECK(saved.metadata.at("scheme") == "rope");

    // Evaluate only, starting from another seed's initial weights: the file's replace them all.
    RunConfig reload = config;
    reload.seed = 1;
    reload.steps = 0;
    RunFiles reload_files;
    reload_files.load_path = trained_file.path;
    reload_files.save_path = reloaded_file.path;
    const RunResult evaluated = run_with_files(reload, reload_files);
    const WeightsFile resaved = read_weights_file(reloaded_file.path);
    REQUIRE(resaved.tensors.size() == saved.tensors.size());
    for (const auto& [name, tensor] : saved.tensors) {
        INFO(name);
        CHECK(same_numbers(resaved.tensors.at(name), tensor));
    }
    // The same weights on the same test sequences (seed 0's) give the same accuracies.
    reload.seed = 0;
    reload_files.save_path.clear();
    const RunResult same_seed = run_with_files(reload, reload_files);
    CHECK(same_seed.accuracy == trained.accuracy);
    CHECK(same_seed.scaled_accuracy == trained.scaled_accuracy);
    CHECK(evaluated.accuracy.size() == trained.accuracy.size());
}

TEST_CASE("run_experiment refuses --steps 0 without --load, an unwritable --save, another scheme's weights",
          "[weights_file][tasks]") {
    RunConfig no_training;
    no_training.steps = 0;
    CHECK_THROWS_WITH(check_files(no_training, RunFiles{}), ContainsSubstring("0 is allowed with --load"));

    RunFiles nowhere;
    nowhere.save_path = "/nonexistent/weights.safetensors";
    CHECK_THROWS_WITH(check_files(RunConfig{}, nowhere), ContainsSubstring("the folder '/nonexistent' does not exist"));

    TemporaryFile file("rope.safetensors");
    RunConfig config;
    config.scheme = "rope";
    config.steps = 1, config.batch = 2, config.dim = 8, config.layers = 1, config.mlp_hidden = 16;
    config.eval_sequences = 2;
    RunFiles files;
    files.save_path = file.path;
    run_with_files(config, files);
    config.scheme = "none";  // the same parameters, so only the metadata can tell
    files.save_path.clear();
    files.load_path = file.path;
    CHECK_THAT(message_of<std::runtime_error>([&] { run_with_files(config, files); }),
               ContainsSubstring("saved as lag rope; this run is lag none; load it into a run of the task and scheme it was saved as"));

    write_bytes(file.path, "not a weights file");
    CHECK_THAT(message_of<std::runtime_error>([&] { run_with_files(config, files); }), ContainsSubstring("the header length"));
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
               ContainsSubstring("--save-layout must be ours or chapter (the chapter's PyTorch model's names), got 'pytorch'"));
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
               ContainsSubstring("it mixes two layouts: 'head.bias' is our name, 'emb.weight' the chapter's model's"));
    NamedTensors unknown = mixed;
    unknown.back().first = "layers.0.attn.weight";
    write_weights_file(file.path, unknown);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               ContainsSubstring("tensor 'layers.0.attn.weight' is not a parameter of this model, by our names or the chapter's"));
    // In the chapter's layout, a missing parameter is named as the chapter names it.
    NamedTensors missing;
    for (const auto& [name, tensor] : read.tensors)
        if (name != "layers.0.n2.bias") missing.emplace_back(name, tensor);
    write_weights_file(file.path, missing);
    CHECK_THAT(message_of<std::runtime_error>([&] { load_weights(file.path, loaded.model); }),
               ContainsSubstring("it has no tensor 'layers.0.n2.bias'"));
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

    RunFiles files;
    files.load_path = ours.path;
    CHECK_THAT(message_of<std::runtime_error>([&] { run_with_files(config, files); }),
               ContainsSubstring("its __metadata__ does not say the task and scheme it was saved as"));
    std::vector<std::string> notes;
    files.load_notice = [&](const std::string& note) { notes.push_back(note); };
    files.load_path = chapter.path;
    run_with_files(config, files);
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], ContainsSubstring("the chapter's PyTorch layout, with no task and scheme in its metadata: loaded as lag "
                                  "rope, this run's task and scheme"));
    // Into a run whose model it does not fit (seen's vocabulary): refused, and no note beside the refusal.
    notes.clear();
    RunConfig other = config;
    other.task = "seen";
    CHECK_THAT(message_of<std::runtime_error>([&] { run_with_files(other, files); }), ContainsSubstring("has shape"));
    CHECK(notes.empty());

    // Saved in the chapter's layout by a run, it says what it was saved as, and is checked like ours.
    RunConfig save = config;
    save.steps = 1, save.batch = 2;
    RunFiles save_files;
    save_files.save_path = chapter.path, save_files.save_layout = WeightsLayout::chapter;
    run_with_files(save, save_files);
    CHECK(read_weights_file(chapter.path).metadata.at("scheme") == "rope");
    CHECK(read_weights_file(chapter.path).tensors.count("layers.0.qkv.weight") == 1);
    config.scheme = "rope:1000000";
    notes.clear();
    CHECK_THAT(message_of<std::runtime_error>([&] { run_with_files(config, files); }),
               ContainsSubstring("saved as lag rope; this run is lag rope:1000000"));
    CHECK(notes.empty());

    RunConfig t5 = save;
    t5.scheme = "t5";
    CHECK_THAT(invalid_argument_message([&] { check_files(t5, save_files); }), ContainsSubstring("the chapter's PyTorch model has no t5 scheme"));
    t5.scheme = "rope";
    save_files.save_path.clear();
    CHECK_THAT(invalid_argument_message([&] { check_files(t5, save_files); }), ContainsSubstring("--save-layout chapter needs --save FILE"));
}
