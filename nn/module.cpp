// Module: registration and the depth-first walk over parameters.
// Leaves out removing or renaming parameters after construction.
#include "nn/module.hpp"

namespace wai {

Value& Module::register_parameter(const std::string& name, Tensor initial) {
    parameters_.emplace_back(name, Value(std::move(initial), true));
    return parameters_.back().second;
}

void Module::register_module(const std::string& name, Module& child) { children_.emplace_back(name, &child); }

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Value>>& out) const {
    for (const auto& [name, value] : parameters_) out.emplace_back(prefix + name, value);
    for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Value>> Module::named_parameters() const {
    std::vector<std::pair<std::string, Value>> out;
    collect("", out);
    return out;
}

std::vector<Value> Module::parameters() const {
    std::vector<Value> out;
    for (auto& [name, value] : named_parameters()) out.push_back(value);
    return out;
}

int64_t Module::parameter_count() const {
    int64_t total = 0;
    for (const Value& p : parameters()) total += p.value().numel();
    return total;
}

void Module::zero_grad() {
    for (Value& p : parameters()) p.zero_grad();
}

}  // namespace wai
