// A position scheme of your own, run under the name "mine" wherever a scheme is named:
// `build/train_position lag mine 0`, `make experiment MY_SCHEMES=mine` (your rows beside the chapter's
// table, in results/summary.md), the lessons' and exercises' configs (scheme = "mine").
// It starts as RoPE (positional/rope.hpp), so until you change positional/mine.cpp it trains and
// scores exactly as `rope` does. It can act in every place a scheme can (nn/position.hpp): added to
// the embeddings, on queries and keys, as a bias on the scores, on the values and on the attended
// output. Leaves out parameters of your own (see positional/learned.cpp for how a scheme registers one)
// and flags: change the code, rebuild, run.
#pragma once
#include "positional/rope.hpp"

namespace wai {

class MyPositions : public PositionEncoding {
public:
    // D, NH, and the model's init stream (draw from it only for parameters of your own).
    MyPositions(int64_t dim, int64_t heads, Generator& generator);
    Value add_to_embeddings(const Value& h) const override;     // (B, T, D) -> (B, T, D)
    Value rotate_queries_keys(const Value& x) const override;   // (B, NH, T, H) -> (B, NH, T, H)
    Value score_bias(int64_t heads, int64_t T) const override;  // (NH, T, T), or an undefined Value for none
    Value transform_values(const Value& v) const override;      // (B, NH, T, H) -> (B, NH, T, H)
    Value transform_attended(const Value& o) const override;    // (B, NH, T, H) -> (B, NH, T, H)
    std::string spec() const override { return "mine"; }

    RotaryPositions rope;  // RoPE at base 10,000 on the head dimension H = D / NH
};

}  // namespace wai
