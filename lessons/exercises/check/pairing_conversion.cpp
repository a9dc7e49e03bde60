// The checker of the pairing conversion exercise. First your reordering, for several head sizes,
// against the one the library's two pairings imply (found by asking rope_rotate which dimensions it
// turns together). Then your conversion of one qkv Linear, weight and bias, against the reordering
// applied to the right rows. Then lesson 07's repair: a model built with interleaved RoPE, its qkv
// weights converted by your code, run with half-split RoPE, must give the same logits.
// Known slips it names: the inverse reordering (scattering rows where they should be gathered), the
// members of each pair swapped, the bias left as it was (lesson 07's own trap: every logit moves),
// one reordering across the whole width instead of one per head, only the first head converted, only
// the query rows reordered, rows overwritten before they are read (in place, with no copy), and
// the value rows reordered too. That last one is not harmless: values are never rotated, and the
// output projection reads each head's value dimensions in their trained order, so the logits move.
// Leaves out training: the logits agree or not whatever the weights are, so the model is a fresh one
// (every Linear's bias is drawn nonzero); training one, as lesson 07 does, would add time and show nothing more.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <stdexcept>
#include <string>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/pairing_conversion.hpp"
#include "positional/rope.hpp"
#include "tasks/experiment.hpp"

using wai::RopePairing;
using wai::Shape;
using wai::Tensor;
using Order = std::vector<int64_t>;

namespace {

// The dimensions (first, second) the library turns together as pair `pair` of a head of H, in
// `pairing`: each unit vector is turned a quarter turn with only that pair turning, and
// (a, b) -> (a cos - b sin, a sin + b cos) at 90 degrees takes (1, 0) to (0, 1): first goes to second.
std::pair<int64_t, int64_t> library_pair(int64_t H, int64_t pair, RopePairing pairing) {
    std::vector<double> frequencies(H / 2, 0.0);
    frequencies[pair] = std::numbers::pi / 2;  // position 1 turns this pair by 90 degrees, no other pair
    const wai::RopeTable table = wai::make_rope_table(2, frequencies, pairing);
    for (int64_t first = 0; first < H; ++first) {
        Tensor unit(Shape{2, H});  // (T, H) = (2, H): position 1 holds the unit vector
        unit(1, first) = 1.0f;
        const Tensor turned = wai::rope_rotate(unit, table);
        for (int64_t second = 0; second < H; ++second)
            if (second != first && turned(1, second) > 0.5f) return {first, second};
    }
    throw std::logic_error("the library turns no dimension as pair " + std::to_string(pair));
}

// The reordering the library's pairings imply: half-split position j holds interleaved dimension
// order[j]. With swap_members, each pair's two members the other way round (a slip).
Order library_order(int64_t H, bool swap_members = false) {
    Order order(H);
    for (int64_t i = 0; i < H / 2; ++i) {
        const auto [from_first, from_second] = library_pair(H, i, RopePairing::interleaved);
        const auto [to_first, to_second] = library_pair(H, i, RopePairing::half_split);
        order[to_first] = swap_members ? from_second : from_first;
        order[to_second] = swap_members ? from_first : from_second;
    }
    return order;
}

Order inverse_of(const Order& order) {
    Order inverse(order.size());
    for (size_t j = 0; j < order.size(); ++j) inverse[order[j]] = static_cast<int64_t>(j);
    return inverse;
}

Order identity(int64_t H) {
    Order order(H);
    for (int64_t j = 0; j < H; ++j) order[j] = j;
    return order;
}

Tensor as_tensor(const Order& order) {
    Tensor t(Shape{static_cast<int64_t>(order.size())});
    for (size_t j = 0; j < order.size(); ++j) t[static_cast<int64_t>(j)] = static_cast<float>(order[j]);
    return t;
}

// rows (3D, C) or (3D): in the first `parts` parts of D rows (queries, keys, values), the first
// `blocks` blocks of order.size() rows each reordered, new row j = old row order[j].
Tensor reordered(const Tensor& rows, const Order& order, int64_t parts, int64_t blocks) {
    const int64_t D = rows.size(0) / 3, block = static_cast<int64_t>(order.size());
    const int64_t row_length = rows.numel() / rows.size(0);
    Tensor out = rows;
    for (int64_t part = 0; part < parts; ++part)
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t start = part * D + b * block;
            for (int64_t j = 0; j < block; ++j)
                for (int64_t c = 0; c < row_length; ++c)
                    out[(start + j) * row_length + c] = rows[(start + order[j]) * row_length + c];
        }
    return out;
}

// The same reordering done in place with no copy: row j of a block takes row order[j] as it is
// by then, which an earlier step of the same block may already have overwritten.
Tensor reordered_in_place(const Tensor& rows, const Order& order, int64_t parts, int64_t blocks) {
    const int64_t D = rows.size(0) / 3, block = static_cast<int64_t>(order.size());
    const int64_t row_length = rows.numel() / rows.size(0);
    Tensor out = rows;
    for (int64_t part = 0; part < parts; ++part)
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t start = part * D + b * block;
            for (int64_t j = 0; j < block; ++j)
                for (int64_t c = 0; c < row_length; ++c)
                    out[(start + j) * row_length + c] = out[(start + order[j]) * row_length + c];
        }
    return out;
}

// A conversion of one qkv Linear's weight and bias, in place.
using Conversion = std::function<void(Tensor& weight, Tensor& bias)>;
struct KnownConversion {
    std::string hint;
    Conversion convert;
};

// The right conversion, then each known slip, for heads of H in a model of width D.
std::vector<KnownConversion> conversions(int64_t D, int64_t H) {
    const Order order = library_order(H);
    auto rows_and_bias = [](Order o, int64_t parts, int64_t blocks, bool bias_too) -> Conversion {
        return [=](Tensor& w, Tensor& b) {
            w = reordered(w, o, parts, blocks);
            if (bias_too) b = reordered(b, o, parts, blocks);
        };
    };
    return {{"", rows_and_bias(order, 2, D / H, true)},
            {"the weight rows moved but the bias entries stayed: q = W x + b, so bias entry r must move with row r "
             "(lesson 07's own trap: every logit moves)",
             rows_and_bias(order, 2, D / H, false)},
            {"the value rows are reordered too: values are never rotated, and the output projection reads each head's "
             "value dimensions in their trained order",
             rows_and_bias(order, 3, D / H, true)},
            {"only the first head is converted: every head of the query part and of the key part has its own block of "
             "H rows",
             rows_and_bias(order, 2, 1, true)},
            {"that is one reordering across the whole width D; RoPE pairs dimensions within each head of H",
             rows_and_bias(library_order(D), 2, 1, true)},
            {"new row order[j] = old row j scatters where the rows should be gathered: new row j = old row order[j]",
             rows_and_bias(inverse_of(order), 2, D / H, true)},
            {"only the query rows are reordered: the keys are rotated in the same pairs, so their rows move too",
             rows_and_bias(order, 1, D / H, true)},
            {"rows were overwritten before they were read: reordering in place, row j takes row order[j] after an "
             "earlier step may have written over it; gather from a copy of the block (or of the whole tensor)",
             [=](Tensor& w, Tensor& b) {
                 w = reordered_in_place(w, order, 2, D / H);
                 b = reordered_in_place(b, order, 2, D / H);
             }},
            {"nothing is reordered", [](Tensor&, Tensor&) {}}};
}

wai::RunConfig model_config() {  // lesson 07's model: D = 32, two heads of H = 16, on lag
    wai::RunConfig config;
    config.task = "lag", config.scheme = "rope", config.dim = 32, config.heads = 2, config.mlp_hidden = 64;
    return config;
}

// A fresh model's logits (B, T, V) on `batch`, its qkv Linears converted by `convert`, its RoPE pairing set.
Tensor logits_after(const Conversion& convert, RopePairing pairing, const wai::Batch& batch) {
    const std::unique_ptr<wai::Transformer> model = wai::make_model(model_config());
    for (auto& block : model->blocks) convert(block->attention.qkv.weight.value(), block->attention.qkv.bias.value());
    const wai::RotaryPositions rope(model_config().dim / model_config().heads, 10000.0, pairing);  // the model's, paired this way
    wai::ForwardOptions options;
    options.position = &rope;
    wai::NoGradScope no_grad;
    return model->forward(batch.tokens, batch.B, batch.T, options).value();
}

void check(exercise::Checker& checker) {
    checker.next_hint = "start with half_split_from_interleaved: half-split position j < H/2 is the first member of pair j";
    for (int64_t H : {8, 16}) {
        const Order right = library_order(H);
        const bool order_right = checker.compare(
            "half_split_from_interleaved(" + std::to_string(H) + ")", as_tensor(half_split_from_interleaved(H)),
            as_tensor(right), 0.0,
            {{"that is the inverse: it says where interleaved dimension j goes, not which one half-split position j "
              "takes",
              as_tensor(inverse_of(right))},
             {"the two members of each pair are swapped: the pair would turn backwards", as_tensor(library_order(H, true))},
             {"that is no reordering at all: every dimension stays where it is", as_tensor(identity(H))}});
        if (!order_right) return;
    }

    const wai::RunConfig config = model_config();
    const int64_t D = config.dim, H = config.dim / config.heads;
    checker.next_hint = "the reordering is right; now convert_qkv_to_half_split: gather the query and key rows of every head";
    const std::vector<KnownConversion> known = conversions(D, H);
    wai::Generator generator(11);
    const Tensor weight = Tensor::normal(Shape{3 * D, D}, 0.0f, 1.0f, generator), bias = Tensor::normal(Shape{3 * D}, 0.0f, 1.0f, generator);
    auto after = [&](const Conversion& convert, bool want_bias) {
        Tensor w = weight, b = bias;
        convert(w, b);
        return want_bias ? b : w;
    };
    const Order right = library_order(H);
    const Conversion yours = [&](Tensor& w, Tensor& b) { convert_qkv_to_half_split(w, b, H, right); };
    for (bool is_bias : {false, true}) {
        std::vector<exercise::Slip> slips;
        for (size_t k = 1; k < known.size(); ++k) slips.push_back({known[k].hint, after(known[k].convert, is_bias)});
        // The bias alone cannot tell whether the weight rows moved (its line comes after theirs): say what it shows.
        if (is_bias)
            slips[0].hint = "the bias entries stayed where they were: q = W x + b, so bias entry r must move with weight row r "
                            "(lesson 07's own trap: every logit moves)";
        checker.compare(std::string("convert_qkv_to_half_split on a random qkv ") + (is_bias ? "bias (96)" : "weight (96, 32)") +
                            ", D = 32, two heads of 16, with the right reordering",
                        after(yours, is_bias), after(known[0].convert, is_bias), 0.0, slips);
    }

    // Lesson 07's repair, with your reordering and your conversion: the same sums in another order,
    // so the logits agree to float32 rounding relative to their size, and no more.
    const wai::Batch batch = wai::make_task("lag").sample(generator, 8, 32);
    const Tensor trained_as = logits_after([](Tensor&, Tensor&) {}, RopePairing::interleaved, batch);
    double largest = 1.0;
    for (int64_t j = 0; j < trained_as.numel(); ++j) largest = std::max(largest, std::abs(static_cast<double>(trained_as[j])));
    const Order your_order = half_split_from_interleaved(H);
    std::vector<exercise::Slip> slips;
    for (size_t k = 1; k < known.size(); ++k)
        slips.push_back({known[k].hint, logits_after(known[k].convert, RopePairing::half_split, batch)});
    double trap = 0.0;  // the last slip is no conversion at all
    for (int64_t j = 0; j < trained_as.numel(); ++j) trap = std::max(trap, std::abs(static_cast<double>(slips.back().result[j]) - trained_as[j]));
    checker.note("(the trap: the same model run with half-split RoPE and no conversion moves its logits by up to " +
                 exercise::number(trap) + ")");
    checker.compare("the logits (8, 32, 16) of a fresh model of lesson 07's sizes converted by your code, run with half-split RoPE, against "
                    "the model run with interleaved RoPE",
                    logits_after([&](Tensor& w, Tensor& b) { convert_qkv_to_half_split(w, b, H, your_order); },
                                 RopePairing::half_split, batch),
                    trained_as, 1e-5 * largest, slips);
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"pairing_conversion",
     "converting a model between RoPE's two pairings (Where Am I?, \"One trap for anyone loading real weights\")",
                                      "start with half_split_from_interleaved"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
