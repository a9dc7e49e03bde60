// Builds the PositionEncoding a spec names, for a model of width D with NH heads.
// Leaves out parsing (positional/spec.cpp) and any scheme's own mathematics.
#pragma once
#include <memory>

#include "nn/position.hpp"
#include "positional/spec.hpp"

namespace wai {

constexpr int64_t learned_table_rows = 128;  // the chapter's table: positions 0..127

std::unique_ptr<PositionEncoding> make_position_encoding(const PositionSpec& spec, int64_t dim, int64_t heads,
                                                         Generator& generator);

}  // namespace wai
