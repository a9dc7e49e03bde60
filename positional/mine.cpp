// Your position scheme: change any of the five functions below, rebuild (make), and run it as "mine".
// As shipped, it is RoPE: queries and keys rotated, nothing else touched. An idea to try, in full:
// RoPE on the values too, turned back after attention, so each value is weighed in its key's frame
// and returned to its query's:
//     Value MyPositions::transform_values(const Value& v) const { return rope.rotate_queries_keys(v); }
//     Value MyPositions::transform_attended(const Value& o) const { return back.rotate_queries_keys(o); }
// with a member `RotaryPositions back;` built as RotaryPositions(H, 10000.0, RopePairing::interleaved,
// negated, 1.0f), where `negated` is rope_frequencies(H, 10000.0) with every entry times -1 (a
// rotation by -t * theta_i undoes one by t * theta_i). Leaves out nothing the model calls.
#include "positional/mine.hpp"

#include <stdexcept>

namespace wai {

MyPositions::MyPositions(int64_t dim, int64_t heads, Generator& generator) : rope(heads > 0 ? dim / heads : 0, 10000.0) {
    (void)generator;  // no parameters of its own yet
}

// Absolute place: nothing added, as in RoPE.
Value MyPositions::add_to_embeddings(const Value& h) const { return h; }

// Queries and keys: RoPE's rotation, pair (2i, 2i+1) of row t turned by t * theta_i.
Value MyPositions::rotate_queries_keys(const Value& x) const { return rope.rotate_queries_keys(x); }

// Scores: no bias, as in RoPE.
Value MyPositions::score_bias(int64_t heads, int64_t T) const {
    (void)heads, (void)T;
    return Value();
}

// Values and the attended output: left as they are, as in RoPE.
Value MyPositions::transform_values(const Value& v) const { return v; }
Value MyPositions::transform_attended(const Value& o) const { return o; }

}  // namespace wai
