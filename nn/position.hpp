// PositionEncoding: the two places a position scheme can enter the model, as the chapter shows.
// Absolute schemes add to the token embeddings before the first block; relative ones act inside
// attention, by rotating queries and keys (RoPE) or by adding a bias to the scores (ALiBi).
// nn/ defines only this interface and the "none" scheme; the schemes themselves are positional/.
#pragma once
#include "nn/module.hpp"

namespace wai {

class PositionEncoding : public Module {
public:
    // Absolute place: h (B, T, D) -> (B, T, D), position t being index t of the sequence.
    virtual Value add_to_embeddings(const Value& h) const { return h; }
    // Relative place, queries and keys: x (B, NH, T, H) -> (B, NH, T, H).
    virtual Value rotate_queries_keys(const Value& x) const { return x; }
    // Relative place, scores: (NH, T, T) added to the scores of every batch entry, or an undefined
    // Value for none. Entry [h, m, n] is for query m and key n. A Value, so a scheme may learn it.
    virtual Value score_bias(int64_t heads, int64_t T) const {
        (void)heads, (void)T;
        return Value();
    }
    // Values: v (B, NH, T, H) -> (B, NH, T, H) before the weights average them, and the attended
    // output (B, NH, T, H) -> (B, NH, T, H) before the heads merge. No scheme of the chapter acts
    // here; a scheme of your own may (positional/mine.hpp).
    virtual Value transform_values(const Value& v) const { return v; }
    virtual Value transform_attended(const Value& o) const { return o; }
    virtual std::string spec() const { return "none"; }  // the spec string that names the scheme
};

}  // namespace wai
