// Module: a layer that owns named parameters and sub-layers, walkable in a fixed order.
// Names are dotted paths in registration order ("blocks.0.attention.qkv.weight"), the order an
// optimizer, a weight file and a test all see. Leaves out buffers, train/eval modes and hooks.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "autograd/value.hpp"

namespace wai {

class Module {
public:
    Module() = default;
    virtual ~Module() = default;
    // A module's registered children point into it, so it stays where it was built.
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    // Every parameter of this module and its children, depth first, in registration order.
    std::vector<std::pair<std::string, Value>> named_parameters() const;
    std::vector<Value> parameters() const;
    int64_t parameter_count() const;  // numbers, not tensors
    void zero_grad();

protected:
    Value& register_parameter(const std::string& name, Tensor initial);
    void register_module(const std::string& name, Module& child);

private:
    void collect(const std::string& prefix, std::vector<std::pair<std::string, Value>>& out) const;
    std::vector<std::pair<std::string, Value>> parameters_;
    std::vector<std::pair<std::string, Module*>> children_;
};

}  // namespace wai
