// A Transformer's parameter names in the two layouts (ours, and the chapter's PyTorch model's), which
// layout a file is in, and saving and loading a module through a weight file (files/weights_file.cpp
// reads and writes the format). Leaves out the format's rules.
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "files/weights_file.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

namespace {

// A file that does not fit the module, refused as the reader refuses a bad file (files/weights_file.cpp).
[[noreturn]] void refuse(const std::string& path, const std::string& problem, const std::string& accepted) {
    throw std::runtime_error(nul_shown("weights file '" + path + "': " + problem + "; " + accepted));
}

// Our names and the chapter's model's: its modules emb, pos, layers (each n1, qkv, o, n2, and mlp, an
// nn.Sequential of Linear, GELU, Linear) and out, each with PyTorch's .weight and .bias.
const std::pair<std::string, std::string> model_parts[] = {{"tokens.", "emb."}, {"position.", "pos."}, {"head.", "out."}};
const std::pair<std::string, std::string> block_parts[] = {{"norm1.", "n1."},           {"attention.qkv.", "qkv."},
                                                           {"attention.output.", "o."}, {"norm2.", "n2."},
                                                           {"mlp.expand.", "mlp.0."},   {"mlp.project.", "mlp.2."}};

bool is_leaf(std::string_view rest) { return rest == "weight" || rest == "bias"; }

// `name` in the other layout: to the chapter's names when to_chapter, else back to ours; "" if none.
std::string translate(const std::string& name, bool to_chapter) {
    const auto from = [&](const auto& pair) -> const std::string& { return to_chapter ? pair.first : pair.second; };
    const auto to = [&](const auto& pair) -> const std::string& { return to_chapter ? pair.second : pair.first; };
    for (const auto& part : model_parts)
        if (name.starts_with(from(part)) && is_leaf(std::string_view(name).substr(from(part).size())))
            return to(part) + name.substr(from(part).size());
    const std::string from_stack = to_chapter ? "blocks." : "layers.", to_stack = to_chapter ? "layers." : "blocks.";
    if (!name.starts_with(from_stack)) return "";
    size_t end = from_stack.size();
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == from_stack.size() || end >= name.size() || name[end] != '.') return "";
    const std::string number = name.substr(from_stack.size(), end - from_stack.size()), rest = name.substr(end + 1);
    for (const auto& part : block_parts)
        if (rest.starts_with(from(part)) && is_leaf(std::string_view(rest).substr(from(part).size())))
            return to_stack + number + "." + to(part) + rest.substr(from(part).size());
    return "";
}

// The file's tensor names in the order of their data (file.order), or by name for a WeightsFile put
// together by hand without one.
std::vector<std::string> names_in_order(const WeightsFile& file) {
    if (file.order.size() == file.tensors.size()) return file.order;
    std::vector<std::string> names;
    for (const auto& entry : file.tensors) names.push_back(entry.first);
    return names;
}

}  // namespace

WeightsLayout parse_weights_layout(const std::string& text, const std::string& what) {
    if (text == "ours") return WeightsLayout::ours;
    if (text == "chapter") return WeightsLayout::chapter;
    throw std::invalid_argument(what + " must be ours or chapter (the chapter's PyTorch model's names), got '" + text + "'");
}

std::string chapter_name(const std::string& ours) { return translate(ours, true); }
std::string name_from_chapter(const std::string& chapter) { return translate(chapter, false); }

WeightsLayout weights_layout(const WeightsFile& file, const Module& module, const std::string& path) {
    std::set<std::string> parameters;
    for (const auto& entry : module.named_parameters()) parameters.insert(entry.first);
    std::string first_ours, first_chapter;
    for (const std::string& name : names_in_order(file)) {
        if (parameters.count(name)) {
            if (first_ours.empty()) first_ours = name;
        } else if (parameters.count(name_from_chapter(name))) {
            if (first_chapter.empty()) first_chapter = name;
        } else {
            refuse(path, "tensor '" + name + "' is not a parameter of this model, by our names or the chapter's PyTorch model's",
                   "it must hold the model's parameters and nothing else, named as here (tokens.weight, "
                   "blocks.N.attention.qkv.weight, ...) or as the chapter's model names them (emb.weight, "
                   "layers.N.qkv.weight, ...); saved with another scheme?");
        }
    }
    if (!first_ours.empty() && !first_chapter.empty())
        refuse(path, "it mixes two layouts: '" + first_ours + "' is our name, '" + first_chapter + "' the chapter's model's",
               "a file names every parameter in one layout");
    return first_chapter.empty() ? WeightsLayout::ours : WeightsLayout::chapter;
}

// ---- a module's weights ------------------------------------------------------------------------

namespace {

std::string name_in(WeightsLayout layout, const std::string& ours) {
    return layout == WeightsLayout::ours ? ours : chapter_name(ours);
}

}  // namespace

void save_weights(const std::string& path, const Module& module, const NamedTensors& extra,
                  const std::map<std::string, std::string>& metadata, WeightsLayout layout) {
    NamedTensors tensors;
    for (const auto& [name, parameter] : module.named_parameters()) {
        const std::string saved = name_in(layout, name);
        if (saved.empty())
            throw std::invalid_argument("weights file '" + path + "': the chapter's PyTorch model has no name for '" +
                                        name + "'");
        tensors.emplace_back(saved, parameter.value());
    }
    tensors.insert(tensors.end(), extra.begin(), extra.end());
    write_weights_file(path, tensors, metadata);
}

void load_parameters(Module& module, const WeightsFile& file, const std::string& path, WeightsLayout layout) {
    auto parameters = module.named_parameters();
    std::vector<const Tensor*> found_tensors;
    for (const auto& [name, parameter] : parameters) {
        const std::string saved = name_in(layout, name);
        const auto found = file.tensors.find(saved);
        if (saved.empty() || found == file.tensors.end())
            refuse(path, "it has no tensor '" + (saved.empty() ? name : saved) + "'",
                   "it must hold each of the model's " + std::to_string(parameters.size()) + " parameters by name");
        if (found->second.shape() != parameter.shape())
            refuse(path, "tensor '" + saved + "' has shape " + found->second.shape().str() + ", the model's is " +
                             parameter.shape().str(),
                   "weights load only into a model of the same sizes");
        if (!all_finite(found->second)) refuse(path, "tensor '" + saved + "' holds NaN or infinity", "weights must be finite");
        found_tensors.push_back(&found->second);
    }
    for (size_t i = 0; i < parameters.size(); ++i) parameters[i].second.value() = *found_tensors[i];
}

std::map<std::string, std::string> load_weights(const std::string& path, Module& module) {
    WeightsFile file = read_weights_file(path);
    load_parameters(module, file, path, weights_layout(file, module, path));
    return std::move(file.metadata);
}

}  // namespace wai
