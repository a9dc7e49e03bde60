// The spec -> scheme switch. Leaves out nothing else.
#include "positional/make_position.hpp"

#include "positional/alibi.hpp"
#include "positional/learned.hpp"
#include "positional/mine.hpp"
#include "positional/rope.hpp"
#include "positional/sinusoid.hpp"
#include "positional/t5_bias.hpp"

namespace wai {

std::unique_ptr<PositionEncoding> make_position_encoding(const PositionSpec& spec, int64_t dim, int64_t heads,
                                                         Generator& generator) {
    switch (spec.kind) {
        case PositionSpec::Kind::none: return std::make_unique<PositionEncoding>();
        case PositionSpec::Kind::sinusoid: return std::make_unique<SinusoidPositions>(dim);
        case PositionSpec::Kind::learned: return std::make_unique<LearnedPositions>(learned_table_rows, dim, generator);
        case PositionSpec::Kind::rope:
            return std::make_unique<RotaryPositions>(dim / heads, spec.has_value ? spec.value : 10000.0);
        case PositionSpec::Kind::alibi: return std::make_unique<AlibiPositions>(spec.has_value ? spec.value : 0.0);
        case PositionSpec::Kind::mine: return std::make_unique<MyPositions>(dim, heads, generator);
        case PositionSpec::Kind::t5:
            return std::make_unique<T5RelativeBias>(
                spec.has_value ? static_cast<int64_t>(spec.value) : t5_default_buckets, heads, dim, generator);
    }
    throw std::logic_error("make_position_encoding: unhandled scheme");
}

}  // namespace wai
