// Weight files through train_position, run as a user runs it: every kind of unreadable, invalid or
// foreign file (deep nesting, duplicate names, holes, overlaps, trailing bytes, another task's, heads',
// lag's, training length's or size's metadata; a huge file judged by its header, never read whole; a
// header of a hundred thousand entries, read in linear time) is one line and exit code 1; --save
// replaces only a weights file; attention_maps refuses weights whose attention overflows.
// Leaves out the format's rules in-process (tests/test_weights_file.cpp) and PyTorch's side
// (tests/test_torch_reference.cpp).
#include "tests/catch.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "files/weights_file.hpp"
#include "tests/helpers.hpp"
#include "tests/programs.hpp"
#include "tests/weights_fixtures.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using Catch::Matchers::Matches;
namespace fs = std::filesystem;

namespace {

// train_position with the words of `args` (split on spaces), in `folder`.
Outcome train_position(const Folder& folder, const std::string& args) { return run(folder, "train_position", words(args)); }

const std::string small = " --dim 8 --mlp 8 --layers 1 --batch 2 --eval-seqs 2 --test-lens 32 --threads 1";

// Exit code 1, nothing on stdout, one line on stderr naming the file and holding `fragment`.
void check_refused(const Outcome& o, const std::string& path, const std::string& fragment) {
    INFO("stderr: " << o.err);
    CHECK(o.status == 1);
    CHECK(o.out.empty());
    CHECK(o.err_lines() == 1);
    CHECK_THAT(o.err, StartsWith("train_position: weights file '" + path + "': "));
    CHECK_THAT(o.err, ContainsSubstring(fragment));
}

}  // namespace

TEST_CASE("train_position: an unreadable or corrupt weight file is refused with one line and exit code 1", "[cli]") {
    Folder folder("bad_weights");
    const std::string saved = folder.file("rope.safetensors");
    const Outcome trained = run(folder, "train_position", tiny_with({"--save", saved}, "lag rope 0"));
    REQUIRE(trained.status == 0);
    const std::string good = read_bytes(saved);
    REQUIRE(good.size() > 100);

    std::string bad_json = good;
    bad_json[9] = '#';  // inside the JSON header, after its 8-byte length and the opening brace
    wai::WeightsFile not_finite = wai::read_weights_file(saved);
    wai::NamedTensors tensors;
    for (auto& [name, tensor] : not_finite.tensors) {
        if (name == "head.bias") tensor.data()[0] = std::numeric_limits<float>::quiet_NaN();
        tensors.emplace_back(name, tensor);
    }
    wai::write_weights_file(folder.file("nan.safetensors"), tensors, not_finite.metadata);
    // The same weights with no "dim" in the metadata, as a file not written by train_position (no
    // "made_by") records it: then only the shapes can tell the sizes apart. (One train_position wrote
    // with a field removed is refused by the field's name: the --load test below.)
    std::map<std::string, std::string> no_dim = not_finite.metadata;
    no_dim.erase("dim");
    no_dim.erase("made_by");
    wai::NamedTensors good_tensors;
    for (const std::string& name : wai::read_weights_file(saved).order) good_tensors.emplace_back(name, wai::read_weights_file(saved).tensors.at(name));
    wai::write_weights_file(folder.file("no_dim.safetensors"), good_tensors, no_dim);
    write_bytes(folder.file("empty.safetensors"), "");
    write_bytes(folder.file("text.safetensors"), "not a weights file at all\n");
    write_bytes(folder.file("half.safetensors"), good.substr(0, good.size() / 2));
    write_bytes(folder.file("five_bytes.safetensors"), good.substr(0, 5));
    write_bytes(folder.file("bad_json.safetensors"), bad_json);
    REQUIRE(mkfifo(folder.file("fifo.safetensors").c_str(), 0600) == 0);

    struct Case {
        std::string file, flags, message;
    };
    const std::vector<Case> cases = {
        {"missing.safetensors", "", "cannot read it (No such file or directory)"},
        {".", "", "it is a folder, not a file; a weights file is a regular file (safetensors)"},
        {"fifo.safetensors", "", "it is a FIFO (named pipe), not a file"},  // never opened: it would wait for a writer
        {"/dev/null", "", "it is a device, not a file"},
        {"empty.safetensors", "", "it is 0 bytes, too short for a header length"},
        {"five_bytes.safetensors", "", "it is 5 bytes, too short for a header length"},
        {"text.safetensors", "", "the header length"},
        {"half.safetensors", "", "(a truncated file?)"},
        {"bad_json.safetensors", "", "the header is not valid JSON"},
        {"nan.safetensors", "", "tensor 'head.bias' holds NaN or infinity"},
        {"rope.safetensors", "--dim 16", "saved with --dim 8; this run has --dim 16"},  // the sizes differ, as recorded
        {"no_dim.safetensors", "--dim 16", "the model's is"},  // the sizes differ, as the shapes show
        {source_dir + "/tests/fuzz/regressions/json_number_overflow.safetensors", "", "the header's JSON cannot be read"},
    };
    for (const Case& c : cases) {
        INFO("--load " << c.file << " " << c.flags);
        const auto args = tiny_with(concat({"--steps", "0", "--load", c.file}, words(c.flags)), "lag rope 0");
        const Outcome o = run(folder, "train_position", args);
        check_one_line_refusal(o, 1, "train_position", "weights file '" + c.file + "': ");
        check_one_line_refusal(o, 1, "train_position", c.message);
    }
    // The right parameters, saved for another scheme: only the file's metadata can tell.
    const auto other_scheme = tiny_with({"--steps", "0", "--load", saved}, "lag none 0");
    check_one_line_refusal(run(folder, "train_position", other_scheme), 1, "train_position",
                           "saved as lag rope; this run is lag none");
    // And the good file still loads.
    CHECK(run(folder, "train_position", tiny_with({"--steps", "0", "--load", saved}, "lag rope 0")).status == 0);
}

TEST_CASE("train_position --load: every kind of invalid or foreign weight file is one line and exit code 1",
          "[weights_file][cli]") {
    Folder folder("refused");
    const std::string good = folder.file("good.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 2" + small + " --save " + good).status == 0);
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
        // Every size and task parameter the file records must be the run's, named with both values.
        {"other_lag", "lag rope", "saved with --lag 5; this run has --lag 3; give the lag it was saved with",
         weights(tensors, with_metadata({{"lag", "5"}}))},
        {"other_train_len", "lag rope", "saved with --train-len 64; this run has --train-len 32",
         weights(tensors, with_metadata({{"train-len", "64"}}))},
        {"other_vocab", "lag rope", "saved with --vocab 20; this run has --vocab 16", weights(tensors, with_metadata({{"vocab", "20"}}))},
        {"other_mlp", "lag rope", "saved with --mlp 16; this run has --mlp 8", weights(tensors, with_metadata({{"mlp", "16"}}))},
        {"other_dim", "lag rope", "saved with --dim 16; this run has --dim 8", weights(tensors, with_metadata({{"dim", "16"}}))},
        {"other_layers", "lag rope", "saved with --layers 2; this run has --layers 1", weights(tensors, with_metadata({{"layers", "2"}}))},
        // A recorded size that is not a number: no run could be given it, so the advice is to save again.
        {"heads_not_a_number", "lag rope", "its __metadata__ records the heads as \"x\", which is not a whole number (no run has that --heads)",
         weights(tensors, with_metadata({{"heads", "x"}}))},
        {"lag_negative", "lag rope", "records the lag as \"-3\", which is not a whole number",
         weights(tensors, with_metadata({{"lag", "-3"}}))},
        // A NUL byte in a metadata value or a tensor's name is written \x00: the message is not cut there.
        {"nul_in_task", "lag rope", std::string("saved as lag\\x00evil rope; this run is lag rope; load it"),
         weights(tensors, with_metadata({{"task", std::string("lag\0evil", 8)}}))},
        {"nul_in_name", "lag rope", "tensor 'w\\x00x' is not a parameter of this model",
         [&] { NamedTensors t = tensors; t.emplace_back(std::string("w\0x", 3), Tensor::zeros(Shape{1})); return weights(t, saved.metadata); }()},
        // A value of 100,000 characters is shortened in the message, which stays a readable line.
        {"long_scheme", "lag rope", "saved as lag " + std::string(60, 'r') + "... (99940 more characters); this run is lag rope",
         weights(tensors, with_metadata({{"scheme", std::string(100000, 'r')}}))},
        // A field train_position --save records, removed: named, never passed over.
        {"no_lag", "lag rope", "its __metadata__ names the task and scheme but not the lag, which this run depends on",
         weights(tensors, [&] { auto m = saved.metadata; m.erase("lag"); return m; }())},
        {"no_heads", "lag rope", "but not the heads, which this run depends on",
         weights(tensors, [&] { auto m = saved.metadata; m.erase("heads"); return m; }())},
        {"no_train_len", "lag rope", "but not the train-len, which this run depends on",
         weights(tensors, [&] { auto m = saved.metadata; m.erase("train-len"); return m; }())},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = folder.file(c.name + ".safetensors");
        c.make(path);
        check_refused(train_position(folder, c.run + " 0 --steps 0" + small + " --load " + path), path, c.message);
    }
    // The file records the sizes its model is built from; heads, which its shapes cannot tell, are checked
    // on loading: saved with 2 heads, it loads with 2 and is refused with 1.
    CHECK(saved.metadata.at("heads") == "1");
    CHECK(saved.metadata.at("vocab") == "16");
    CHECK(saved.metadata.at("lag") == "3");
    CHECK(saved.metadata.at("train-len") == "32");
    const std::string two_heads = folder.file("two_heads.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 2" + small + " --heads 2 --save " + two_heads).status == 0);
    CHECK(read_weights_file(two_heads).metadata.at("heads") == "2");
    CHECK(read_weights_file(two_heads).metadata.at("dim") == saved.metadata.at("dim"));
    CHECK(train_position(folder, "lag rope 0 --steps 0" + small + " --heads 2 --load " + two_heads).status == 0);
    check_refused(train_position(folder, "lag rope 0 --steps 0" + small + " --load " + two_heads), two_heads,
                  "saved with --heads 2; this run has --heads 1");
    // The good file still loads, in our layout and in the chapter's.
    CHECK(train_position(folder, "lag rope 0 --steps 0" + small + " --load " + good).status == 0);
    const std::string chapter = folder.file("chapter.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 0" + small + " --load " + good + " --save-layout chapter --save " +
                                       chapter).status == 0);
    CHECK(read_weights_file(chapter).tensors.count("layers.0.o.weight") == 1);
    const Outcome loaded = train_position(folder, "lag rope 0 --steps 0" + small + " --load " + chapter);
    CHECK(loaded.status == 0);
    CHECK(loaded.err.empty());  // it says what it was saved as: nothing to note
    const Outcome bad_layout = train_position(folder, "lag rope 0" + small + " --save-layout torch --save " + chapter);
    CHECK(bad_layout.status == 2);
    CHECK_THAT(bad_layout.err, ContainsSubstring("--save-layout must be ours or chapter"));
}

TEST_CASE("train_position --save replaces only a weights file: any other file is refused in one line and kept as it was",
          "[weights_file][cli]") {
    Folder folder("save_over");
    const std::string weights = folder.file("w.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 1" + small + " --save " + weights).status == 0);
    // A weights file, or a new path, is written.
    CHECK(train_position(folder, "lag rope 0 --steps 1" + small + " --save " + weights).status == 0);
    const struct {
        std::string name, bytes, message;
    } cases[] = {
        {"table.txt", "lag  rope seed 0: length 32 / 64 / 128: 1.000 / 1.000 / 1.000\n", "its first bytes are not a safetensors header"},
        {"notes.md", "# my notes\n\nthe one about rope\n", "its first bytes are not a safetensors header"},
        {"tiny", "abc", "too short for a safetensors header"},
        {"empty", "", "too short for a safetensors header"},
        // A safetensors-like start whose header is broken: still not a weights file.
        {"broken.safetensors", file_bytes("{\"w\":{\"dtype\":\"F32\"}}", "12345678"), "tensor 'w' has no shape"},
    };
    // A file of /proc says it has 0 bytes whatever it holds: refused before the run, as any other.
    const Outcome proc = train_position(folder, "lag rope 0 --steps 1" + small + " --save /proc/version");
    check_one_line_refusal(proc, 2, "train_position", "--save /proc/version: a file is there that is not a weights file (it is 0 bytes");
    for (const auto& c : cases) {
        INFO(c.name);
        const std::string path = folder.file(c.name);
        write_bytes(path, c.bytes);
        const Outcome o = train_position(folder, "lag rope 0 --steps 1" + small + " --save " + path);
        check_one_line_refusal(o, 2, "train_position", "--save " + path + ": a file is there that is not a weights file (");
        CHECK_THAT(o.err, ContainsSubstring(c.message));
        CHECK(read_bytes(path) == c.bytes);
    }
    // A file of another kind put at the path while the model trains is kept, and the run fails saying so.
    const std::string late = folder.file("late.txt");
    const Outcome o = script(folder, program_path("train_position") + " lag rope 0 --steps 400 --eval-seqs 2 --threads 1 --save " +
                                         quoted(late) + " & sleep 1; printf 'my notes\\n' > " + quoted(late) + "; wait $!");
    INFO("stderr: " << o.err);
    CHECK(o.status == 1);
    CHECK(holds(o.err, "--save " + late + ": a file that is not a weights file was put there during the run"));
    CHECK(read_bytes(late) == "my notes\n");
}

TEST_CASE("train_position --load: a huge file is judged by its header first, never read whole, and its own size is named "
          "when memory runs out", "[weights_file][cli]") {
    // A sanitizer build maps terabytes of shadow memory at start-up, which no address-space limit allows.
    if (fs::path(build_dir).filename() != "build") return;
    Folder folder("huge_weights");
    const std::string load = "ulimit -v 1000000; OMP_NUM_THREADS=1 exec timeout 60 " + program_path("train_position") +
                             " lag rope 0 --steps 0" + small + " --load ";
    const uint64_t gib = uint64_t(1) << 30;
    // sparse FILE of SIZE bytes starting with BYTES: what a huge download or a corrupted copy looks like.
    const auto sparse = [&](const std::string& name, const std::string& bytes, uint64_t size) {
        const std::string path = folder.file(name);
        write_bytes(path, bytes);
        fs::resize_file(path, size);
        return path;
    };
    // Its first 8 bytes are wrong: refused from them, not read into memory first (16 GiB would not fit).
    const std::string long_header = sparse("long_header.safetensors", file_bytes("{}", "", 200'000'000), 16 * gib);
    check_refused(script(folder, load + quoted(long_header)), long_header, "is larger than the 100000000 bytes safetensors allows");
    const std::string not_json = sparse("not_json.safetensors", file_bytes("not json", ""), 16 * gib);
    check_refused(script(folder, load + quoted(not_json)), not_json, "the header is not valid JSON (at byte 2 of 8)");
    // Its header is wrong about the file: refused from the header, the data never read.
    const std::string entry = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    const std::string trailing = sparse("trailing.safetensors", file_bytes(entry, ""), 16 * gib);
    check_refused(script(folder, load + quoted(trailing)), trailing, "trailing bytes");
    // A valid header describing 4 GiB of data, more than the limit allows: the file's size is named, not the run's.
    const std::string big_entry = R"({"w":{"dtype":"F32","shape":[1073741824],"data_offsets":[0,4294967296]}})";
    const std::string big = sparse("big.safetensors", file_bytes(big_entry, ""), 8 + big_entry.size() + 4 * gib);
    const Outcome o = script(folder, load + quoted(big));
    check_refused(o, big, "out of memory: its tensors hold 4294967296 bytes");
    CHECK(o.err.find("this run's sizes") == std::string::npos);
}

TEST_CASE("train_position --load: a header of a hundred thousand entries is read in linear time, not quadratic", "[weights_file][cli]") {
    // nlohmann's parser, given a callback, scans the enclosing object at the end of every object: a
    // header of N empty tensors took N^2 steps (5,000: 0.14 s; 20,000: 2.5 s; 200,000: over a minute).
    Folder folder("many_entries");
    const std::string saved = folder.file("saved.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 1" + small + " --save " + saved).status == 0);
    const std::string bytes = read_bytes(saved);
    uint64_t header_length = 0;
    std::memcpy(&header_length, bytes.data(), 8);
    const std::string header = bytes.substr(8, header_length), data = bytes.substr(8 + header_length);
    REQUIRE(header.rfind("{", 0) == 0);
    const int entries = 100000;
    // N empty tensors among the model's, or N objects in its metadata (each object's end scanned the metadata).
    std::string tensors, metadata;
    for (int i = 0; i < entries; ++i) tensors += "\"t" + std::to_string(i) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)";
    for (int i = 0; i < entries; ++i) metadata += "\"k" + std::to_string(i) + "\":{},";
    const size_t metadata_at = header.find("\"__metadata__\":{");
    REQUIRE(metadata_at != std::string::npos);
    const struct {
        std::string name, header, refusal;
    } cases[] = {
        {"tensors.safetensors", "{" + tensors + header.substr(1), "tensor 't0' "},
        {"metadata.safetensors", header.substr(0, metadata_at + 16) + metadata + header.substr(metadata_at + 16),
         "__metadata__ entry 'k0' is not a string"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const std::string path = folder.file(c.name);
        write_bytes(path, file_bytes(c.header, data));
        // Linear: under 2 s, several times that under a sanitizer; quadratic: past the 60 s of timeout
        // (its exit status 124 is no refusal), for either case. A bound, not a timing: speed is the benches'.
        const Outcome o = script(folder, "exec timeout 60 " + program_path("train_position") + " lag rope 0 --steps 0" + small +
                                             " --load " + quoted(path));
        check_refused(o, path, c.refusal);
    }
}

TEST_CASE("attention_maps: weights whose attention overflows are refused with one line, and no map is written", "[cli]") {
    Folder folder("attention_overflow");
    const std::string good = folder.file("good.safetensors");
    REQUIRE(train_position(folder, "lag rope 0 --steps 2" + small + " --save " + good).status == 0);
    const Outcome drawn = run(folder, "plots/attention_maps", {good, folder.file("good"), "64"});
    INFO(drawn.err);
    CHECK(drawn.status == 0);
    CHECK(fs::exists(folder.path / "good_layer0.dat"));
    // Every weight times 1e18: each one finite, as load_parameters requires, but the scores overflow.
    const WeightsFile saved = read_weights_file(good);
    NamedTensors scaled;
    for (const std::string& name : saved.order) {
        Tensor t = saved.tensors.at(name);
        for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] *= 1e18f;
        scaled.emplace_back(name, t);
    }
    const std::string huge = folder.file("huge.safetensors");
    write_weights_file(huge, scaled, saved.metadata);
    const Outcome o = run(folder, "plots/attention_maps", {huge, folder.file("huge"), "64"});
    check_one_line_refusal(o, 1, "attention_maps", "attention weights hold NaN or infinity");
    CHECK_FALSE(fs::exists(folder.path / "huge_layer0.dat"));
}
