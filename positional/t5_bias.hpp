// T5's learned relative position bias (Raffel et al. 2020, "Exploring the Limits of Transfer Learning
// with a Unified Text-to-Text Transformer"), in its causal (decoder, unidirectional) form: the distance
// d = m - n from query m back to key n falls in a bucket, and each bucket has one learned scalar per
// head, added to the scores. Buckets as T5's: with N buckets, distances 0 .. N/2 - 1 get one each; longer
// ones share N - N/2 log-spaced buckets up to max_distance 128, bucket N/2 + floor(ln(d / (N/2)) /
// ln(128 / (N/2)) * (N - N/2)), and every distance from 128 on falls in the last bucket. Keys ahead
// of the query (masked anyway) use bucket 0, as in T5. Defaults are T5's: 32 buckets (16 exact
// distances, 16 log-spaced from 16 to 128). The table (buckets, NH) starts N(0, D^-1/2), as Hugging
// Face's T5 initialises relative_attention_bias; as in T5, one table serves every layer.
// Leaves out the bidirectional form (half of the buckets for keys ahead) and a configurable max distance.
#pragma once
#include "nn/position.hpp"

namespace wai {

constexpr int64_t t5_default_buckets = 32, t5_max_distance = 128;

// The bucket of distance d >= 0 (negative d, a key ahead, counts as 0). 2 <= buckets <= 255, so that
// the exact buckets (0 .. buckets/2 - 1) stop short of max_distance.
int64_t t5_bucket(int64_t distance, int64_t buckets, int64_t max_distance = t5_max_distance);

// table (buckets, NH) -> (NH, T, T): entry [h, m, n] = table[bucket(m - n), h]. Differentiable in table.
Value t5_bias(const Value& table, int64_t T);

class T5RelativeBias : public PositionEncoding {
public:
    T5RelativeBias(int64_t buckets, int64_t heads, int64_t dim, Generator& generator);
    Value score_bias(int64_t heads, int64_t T) const override;  // (NH, T, T), learned
    std::string spec() const override;                          // "t5", or "t5:N" for N != 32

    int64_t buckets, heads;
    Value table;  // (buckets, NH)
};

}  // namespace wai
