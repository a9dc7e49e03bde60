// T5's bucketing and the bias as a gather from the learned table. The (NH, T, T) bias is one
// embedding gather over the flattened table, so the table's gradient is the gather's scatter-add:
// every score a bucket feeds adds to that bucket's scalar. Leaves out caching the bucket indices.
#include "positional/t5_bias.hpp"

#include <cmath>
#include <stdexcept>

#include "autograd/ops.hpp"

namespace wai {

int64_t t5_bucket(int64_t distance, int64_t buckets, int64_t max_distance) {
    if (buckets < 2 || buckets / 2 >= max_distance)
        throw std::invalid_argument("t5: " + std::to_string(buckets) + " buckets; need 2 to " +
                                    std::to_string(2 * max_distance - 1) + " for max distance " + std::to_string(max_distance));
    const int64_t d = std::max<int64_t>(distance, 0), exact = buckets / 2;
    if (d < exact) return d;
    const double spread = std::log(static_cast<double>(d) / exact) / std::log(static_cast<double>(max_distance) / exact);
    return std::min(exact + static_cast<int64_t>(spread * static_cast<double>(buckets - exact)), buckets - 1);
}

Value t5_bias(const Value& table, int64_t T) {
    const Shape& s = table.shape();
    if (s.rank() != 2) shape_error("t5_bias", s.str(), "expects the table (buckets, NH)");
    const int64_t buckets = s[0], heads = s[1];
    std::vector<int> bucket_of_distance(T);  // distances 0..T-1
    for (int64_t d = 0; d < T; ++d) bucket_of_distance[d] = static_cast<int>(t5_bucket(d, buckets));
    // Row bucket * NH + h of the flattened table (buckets * NH, 1) is table[bucket, h].
    std::vector<int> rows(heads * T * T);
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t m = 0; m < T; ++m)
            for (int64_t n = 0; n < T; ++n)
                rows[(h * T + m) * T + n] = static_cast<int>(bucket_of_distance[std::max<int64_t>(m - n, 0)] * heads + h);
    const Value flat = reshape(table, Shape{buckets * heads, 1});                           // (buckets * NH, 1)
    return reshape(embedding(flat, rows, Shape{heads, T, T}), Shape{heads, T, T});          // (NH, T, T, 1) -> (NH, T, T)
}

T5RelativeBias::T5RelativeBias(int64_t b, int64_t nh, int64_t dim, Generator& generator) : buckets(b), heads(nh) {
    t5_bucket(0, b);  // validates the number of buckets now rather than at the first forward
    if (nh <= 0 || dim <= 0) throw std::invalid_argument("t5: heads and width must be positive");
    table = register_parameter("weight", Tensor::normal(Shape{b, nh}, 0.0f, static_cast<float>(1.0 / std::sqrt(dim)), generator));
}

Value T5RelativeBias::score_bias(int64_t nh, int64_t T) const {
    if (nh != heads)
        throw std::invalid_argument("t5: the bias table has " + std::to_string(heads) + " heads, the attention " +
                                    std::to_string(nh));
    return t5_bias(table, T);
}

std::string T5RelativeBias::spec() const {
    return buckets == t5_default_buckets ? "t5" : "t5:" + std::to_string(buckets);
}

}  // namespace wai
