// fast::rope: the RoPE op of positional/rope.hpp whose backward rotates the incoming gradient back
// where it lies instead of into a new tensor. FastTransformer calls it for a RoPE scheme; a test holds
// it to the plain op. Leaves out everything the plain op leaves out.
#pragma once
#include "positional/rope.hpp"

namespace wai::fast {

Value rope(const Value& x, const RopeTable& table);  // (..., T, H) -> (..., T, H)

}  // namespace wai::fast
