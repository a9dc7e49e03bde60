// The engine held to PyTorch through files, run as a user runs it ([roundtrip], skipped without
// torch): the chapter's PyTorch models load here and ours load there, to the same logits
// (tests/reference/roundtrip.py), and the experiment's run trained in PyTorch
// (tests/reference/train_reference.py) prints train_position's line.
// Leaves out the golden numbers of single ops and layers (tests/test_golden.cpp).
#include "tests/catch.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "autograd/value.hpp"
#include "files/weights_file.hpp"
#include "tasks/experiment.hpp"
#include "tasks/result_line.hpp"
#include "tests/helpers.hpp"
#include "tests/programs.hpp"

using namespace wai;
using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

// train_position with the words of `args` (split on spaces), in `folder`.
Outcome train_position(const Folder& folder, const std::string& args) { return run(folder, "train_position", words(args)); }

}  // namespace

TEST_CASE("roundtrip: the chapter's PyTorch models load here, ours load there, to the same logits within 1e-5",
          "[weights_file][roundtrip]") {
    if (std::system("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1") != 0) {
        WARN("roundtrip skipped: /usr/bin/python3 cannot import torch and numpy (Debian packages python3-torch, python3-numpy)");
        return;
    }
    Folder folder("roundtrip");
    const std::string reference = quoted("/usr/bin/python3") + " " + quoted(source_dir + "/tests/reference/roundtrip.py");
    const Outcome made = script(folder, reference + " torch " + quoted(folder.path.string()));
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
            CHECK_THAT(evaluated.err, ContainsSubstring("the chapter's PyTorch layout, with no task and scheme in its metadata: "
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
    const Outcome checked = script(folder, reference + " check " + quoted(folder.path.string()));
    INFO(checked.out << checked.err);
    CHECK(checked.status == 0);
    CHECK_THAT(checked.out, ContainsSubstring("roundtrip: 14 whereami models loaded into the chapter's PyTorch model"));
}

TEST_CASE("train_reference.py: the experiment's run in PyTorch prints train_position's line, with figures that can be true",
          "[roundtrip]") {
    if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
        WARN("train_reference.py skipped: /usr/bin/python3 cannot import torch (Debian package python3-torch)");
        return;
    }
    Folder folder("train_reference");
    const std::string reference = quoted("/usr/bin/python3") + " " + quoted(source_dir + "/tests/reference/train_reference.py");
    for (const auto& [task, scheme] : std::vector<std::pair<std::string, std::string>>{{"seen", "rope:1000000"}, {"lag", "alibi:0.0625"}}) {
        const Outcome o = script(folder, reference + " " + task + " " + scheme + " 1 --steps 3");
        INFO(o.out << o.err);
        REQUIRE(o.status == 0);
        REQUIRE(o.out.size() > 1);
        const auto line = parse_result_line(o.out.substr(0, o.out.size() - 1));
        REQUIRE(line.has_value());
        CHECK(line->task == task);
        CHECK(line->scheme == scheme);
        CHECK(line->seed == 1);
        CHECK(impossible_figures(*line).empty());
    }
    const Outcome refused = script(folder, reference + " lag t5 0 --steps 3");
    CHECK(refused.status != 0);
    CHECK(holds(refused.err, "scheme must be none, sinusoid, learned, rope[:BASE] or alibi[:SLOPE], got 't5'"));
}
