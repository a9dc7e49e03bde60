// RoPE: the table, the rotation (rows in parallel), the reference loop, and the op.
// The pair (a, b) at angle phi becomes (a cos phi - b sin phi, a sin phi + b cos phi); the inverse
// rotation (angle -phi) is the backward, since a rotation's transpose is its inverse.
// Leaves out caching tables across calls (building one is T * H/2 sin/cos pairs).
#include "positional/rope.hpp"

#include <cmath>
#include <sstream>

#include "autograd/ops.hpp"
#include "tensor/elementwise.hpp"

namespace wai {

std::vector<double> rope_frequencies(int64_t head_dim, double base) {
    if (head_dim <= 0 || head_dim % 2 != 0)
        throw std::invalid_argument("rope: the head dimension must be even and positive, got " + std::to_string(head_dim));
    std::vector<double> theta(head_dim / 2);
    for (int64_t i = 0; i < head_dim / 2; ++i) theta[i] = std::pow(base, -2.0 * static_cast<double>(i) / head_dim);
    return theta;
}

RopeTable make_rope_table(int64_t positions, const std::vector<double>& frequencies, RopePairing pairing,
                          double position_scale) {
    RopeTable table;
    table.positions = positions;
    table.pairs = static_cast<int64_t>(frequencies.size());
    table.pairing = pairing;
    table.cos.resize(positions * table.pairs);
    table.sin.resize(positions * table.pairs);
    for (int64_t t = 0; t < positions; ++t)
        for (int64_t i = 0; i < table.pairs; ++i) {
            const double angle = static_cast<double>(t) * position_scale * frequencies[i];
            table.cos[t * table.pairs + i] = static_cast<float>(std::cos(angle));
            table.sin[t * table.pairs + i] = static_cast<float>(std::sin(angle));
        }
    return table;
}

// Rotates every row of in into out; out may be in (each pair is read before it is written).
static void rotate_rows(const float* in, float* out, const Shape& s, const RopeTable& table, bool inverse) {
    if (s.rank() < 2 || s.last() != 2 * table.pairs || s[s.rank() - 2] > table.positions)
        shape_error("rope", s.str(), "expects (..., T, H) with H = " + std::to_string(2 * table.pairs) + " and T <= " +
                                         std::to_string(table.positions));
    const int64_t H = s.last(), T = s[s.rank() - 2], rows = s.rows(), pairs = table.pairs;
    const float direction = inverse ? -1.0f : 1.0f;
    // One loop per pairing, each plain enough for the compiler to vectorise.
    const bool interleaved = table.pairing == RopePairing::interleaved;
    #pragma omp parallel for if (rows * H > 32768) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t t = r % T;
        const float* cos_t = table.cos.data() + t * pairs;
        const float* sin_t = table.sin.data() + t * pairs;
        const float* x = in + r * H;
        float* o = out + r * H;
        if (interleaved) {
            #pragma omp simd
            for (int64_t i = 0; i < pairs; ++i) {
                const float a = x[2 * i], b = x[2 * i + 1], sine = direction * sin_t[i];
                o[2 * i] = a * cos_t[i] - b * sine;
                o[2 * i + 1] = a * sine + b * cos_t[i];
            }
        } else {
            #pragma omp simd
            for (int64_t i = 0; i < pairs; ++i) {
                const float a = x[i], b = x[i + pairs], sine = direction * sin_t[i];
                o[i] = a * cos_t[i] - b * sine;
                o[i + pairs] = a * sine + b * cos_t[i];
            }
        }
    }
}

Tensor rope_rotate(const Tensor& x, const RopeTable& table, bool inverse) {
    Tensor out = Tensor::uninitialized(x.shape());
    rotate_rows(x.data(), out.data(), x.shape(), table, inverse);
    return out;
}

void rope_rotate_inplace(Tensor& x, const RopeTable& table, bool inverse) {
    rotate_rows(x.data(), x.data(), x.shape(), table, inverse);
}

namespace {  // each op type is private to its file

struct Rope final : Op {
    const RopeTable table;  // a copy: the op must outlive the caller's table
    explicit Rope(RopeTable t) : table(std::move(t)) {}
    // y = R(t * theta) x, pair by pair
    static Value forward(const Value& x, const RopeTable& table) {
        return record("rope", rope_rotate(x.value(), table), {x}, std::make_unique<Rope>(table));
    }
    // dx += R(t * theta)^T g = R(-t * theta) g
    void backward(Node& out) override {
        Value& x = out.parents[0];
        if (x.requires_grad()) x.accumulate_grad(rope_rotate(out.grad, table, /*inverse=*/true));
    }
};

}  // namespace

Value rope(const Value& x, const RopeTable& table) { return Rope::forward(x, table); }

// rope_frequencies validates the head dimension now rather than at the first forward.
RotaryPositions::RotaryPositions(int64_t h, double b, RopePairing p)
    : head_dim(h), base(b), pairing(p), frequencies(rope_frequencies(h, b)) {}

RotaryPositions::RotaryPositions(int64_t h, double b, RopePairing p, std::vector<double> theta, float qk_scale)
    : head_dim(h), base(b), pairing(p), frequencies(std::move(theta)), query_key_scale(qk_scale) {
    if (frequencies.size() != rope_frequencies(h, b).size())  // which also refuses an odd or non-positive h
        throw std::invalid_argument("rope: " + std::to_string(frequencies.size()) + " frequencies for a head dimension of " +
                                    std::to_string(h) + " (it needs " + std::to_string(h / 2) + ")");
}

Value RotaryPositions::rotate_queries_keys(const Value& x) const {
    const int64_t T = x.shape()[x.shape().rank() - 2];
    const RopeTable table = make_rope_table(T, frequencies, pairing);
    const Value rotated = rope(x, table);  // (..., T, H)
    return query_key_scale == 1.0f ? rotated : scale(rotated, query_key_scale);
}

std::string RotaryPositions::spec() const {
    if (base == 10000.0) return "rope";
    std::ostringstream s;
    s << "rope:" << base;
    return s.str();
}

}  // namespace wai
