// attention_maps: the attention weights of a trained model's layers on one test sequence, for pictures.
//   build/plots/attention_maps [--run TASK SCHEME SEED] WEIGHTS OUT_PREFIX [LENGTH]
// With --run, WEIGHTS must be that run's (make plots names the run its picture is labelled with): a
// file whose metadata names another run is refused, never drawn under the wrong name.
// WEIGHTS is a file train_position --save wrote (its metadata names the task, scheme and seed, and
// the model's sizes: a file without them, saved before they were recorded, is taken to be the
// experiment's default size). The sequence is the first of that seed's test sequences
// of LENGTH (default 128), the one the run was scored on. Writes OUT_PREFIX_layerK.dat for each layer
// (and then removes any such file of a layer past the model's last, an earlier run's):
// LENGTH rows (query m) of LENGTH numbers (key n), the weight query m gives key n (0 for the keys
// after the query, which the causal mask hides). Prints, per layer, where queries past the training
// length look: how many put their largest weight exactly the lag back (lag's answer) and their mean distance.
// Leaves out models with more than one head (it writes head 0) and drawing (plots/attention.gp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autograd/ops.hpp"
#include "tensor/number_text.hpp"
#include "files/atomic_file.hpp"
#include "tasks/evaluate.hpp"
#include "tasks/experiment.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"
#include "files/weights_file.hpp"
#include "tensor/elementwise.hpp"

namespace {

std::string metadata(const wai::WeightsFile& file, const std::string& key, const std::string& path) {
    const auto found = file.metadata.find(key);
    if (found == file.metadata.end())
        throw std::runtime_error(path + ": no '" + key + "' in its metadata; save it with train_position --save");
    return found->second;
}

// A size the metadata records ("dim", "heads", ...), or `fallback` when the file does not record it.
int64_t size_in(const wai::WeightsFile& file, const std::string& key, int64_t fallback, const std::string& path) {
    const auto found = file.metadata.find(key);
    return found == file.metadata.end() ? fallback : wai::parse_integer(wai::nul_shown(found->second), path + ": its " + key);
}

// weights (T, T) of one layer as text: row m is query m.
std::string matrix_text(const float* weights, int64_t T, const std::string& title) {
    std::string text = "# " + title + "\n";
    char number[32];
    for (int64_t m = 0; m < T; ++m) {
        for (int64_t n = 0; n < T; ++n) {
            std::snprintf(number, sizeof number, "%s%.6g", n ? " " : "", weights[m * T + n]);
            text += number;
        }
        text += "\n";
    }
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    wai::prepare_process(argv);
    std::vector<std::string> args(argv + 1, argv + argc), expected;  // expected: --run's TASK SCHEME SEED
    const auto usage = [] {
        std::fprintf(stderr, "usage: attention_maps [--run TASK SCHEME SEED] WEIGHTS OUT_PREFIX [LENGTH] (none of them empty)\n");
        return 2;
    };
    if (!args.empty() && args[0] == "--run") {
        if (args.size() < 4) return usage();
        expected.assign(args.begin() + 1, args.begin() + 4);
        args.erase(args.begin(), args.begin() + 4);
    }
    const auto is_empty = [](const std::string& a) { return a.empty(); };
    if ((args.size() != 2 && args.size() != 3) || std::any_of(args.begin(), args.end(), is_empty) ||
        std::any_of(expected.begin(), expected.end(), is_empty))
        return usage();
    try {
        const std::string path = args[0], prefix = args[1];
        const int64_t T = args.size() == 3 ? wai::parse_integer(args[2], "LENGTH") : 128;
        const wai::WeightsFile file = wai::read_weights_file(path);
        wai::RunConfig config;
        config.task = metadata(file, "task", path);
        config.scheme = metadata(file, "scheme", path);
        const std::string seed = metadata(file, "seed", path);
        config.seed = static_cast<uint64_t>(wai::parse_integer(seed, path + ": its seed"));
        if (!expected.empty() && std::vector<std::string>{config.task, config.scheme, seed} != expected)
            throw std::runtime_error(path + ": its metadata names the run " + wai::one_line(config.task + " " + config.scheme +
                                     " seed " + seed) + ", not " + wai::one_line(expected[0] + " " + expected[1] + " seed " +
                                     expected[2]) + ", the run this map is drawn for; run make experiment, whose prune redoes "
                                     "a run whose weights are not its own");
        config.dim = size_in(file, "dim", config.dim, path);
        config.layers = size_in(file, "layers", config.layers, path);
        config.heads = size_in(file, "heads", config.heads, path);
        config.mlp_hidden = size_in(file, "mlp", config.mlp_hidden, path);
        config.vocab = size_in(file, "vocab", config.vocab, path);
        config.lag = size_in(file, "lag", config.lag, path);
        config.train_length = size_in(file, "train-len", config.train_length, path);
        config.test_lengths = {T};
        wai::validate(config);  // a learned model refuses a length past its table here
        const std::unique_ptr<wai::Transformer> model = wai::make_model(config);
        wai::load_parameters(*model, file, path);

        const wai::Task task = wai::make_task(config.task);
        const wai::Batch sequence = wai::test_batch(task, config.seed, T, 1);
        std::vector<wai::Tensor> maps;  // one (1, NH, T, T) per layer, first layer first
        {
            wai::NoGradScope no_grad;
            wai::ForwardOptions options;
            options.attention_weights = &maps;
            model->forward(sequence.tokens, 1, T, options);
        }
        // Numbers out as sound as numbers in: finite weights can still overflow the scores (weights of
        // 1e20 do), and a map of NaN would be drawn as a picture. Refused before any map is written.
        for (size_t layer = 0; layer < model->blocks.size(); ++layer)
            if (!wai::all_finite(maps[layer]))
                throw std::runtime_error(path + ": layer " + std::to_string(layer) +
                                         "'s attention weights hold NaN or infinity (its weights overflow the scores); "
                                         "no map written");
        // Every layer's map written as one: a failure (a full disk) leaves the earlier maps as they were.
        std::vector<std::string> texts;
        std::vector<std::pair<std::string, std::string_view>> outputs;
        for (size_t layer = 0; layer < model->blocks.size(); ++layer) {
            const std::string title = config.task + " " + config.scheme + " seed " + std::to_string(config.seed) +
                                      ", layer " + std::to_string(layer) + ": attention weights, row = query, column = key";
            texts.push_back(matrix_text(maps[layer].data(), T, title));  // (1, NH, T, T): head 0 first
        }
        for (size_t layer = 0; layer < model->blocks.size(); ++layer)
            outputs.emplace_back(prefix + "_layer" + std::to_string(layer) + ".dat", texts[layer]);
        wai::write_files_atomically(outputs);
        for (size_t layer = 0; layer < model->blocks.size(); ++layer) {
            const wai::Tensor& weights = maps[layer];  // (1, NH, T, T): head 0 first
            const wai::AttentionReach reach = wai::attention_reach(weights.data(), T, config.train_length, config.lag);
            std::printf("%s %s seed %llu, layer %zu: of the %lld queries past %lld, %lld put their largest weight %lld back; "
                        "mean distance attended %.1f\n",
                        config.task.c_str(), config.scheme.c_str(), static_cast<unsigned long long>(config.seed), layer,
                        static_cast<long long>(reach.queries), static_cast<long long>(config.train_length),
                        static_cast<long long>(reach.lag_back), static_cast<long long>(config.lag), reach.mean_distance);
        }
        // Maps of layers this model does not have, left by an earlier run with more, would be drawn
        // beside its own (plots/attention.gp draws every OUT_PREFIX_layerK.dat): removed, once every
        // map of this model is written, so a run that fails leaves the earlier maps as they were.
        for (size_t layer = model->blocks.size();; ++layer) {
            const std::string stale = prefix + "_layer" + std::to_string(layer) + ".dat";
            if (std::remove(stale.c_str()) != 0) break;
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attention_maps: %s\n", wai::one_line(e.what()).c_str());
        return 1;
    }
}
