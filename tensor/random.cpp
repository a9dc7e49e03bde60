// Generator: xoshiro256** (Blackman and Vigna, 2018), seeded by splitmix64 as its authors advise.
// Leaves out jumping ahead and stream splitting: a new stream is a new Generator with another seed.
#include "tensor/random.hpp"

#include <cmath>
#include <stdexcept>

namespace wai {

namespace {

uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Generator::Generator(uint64_t seed) {
    for (uint64_t& word : state_) word = splitmix64(seed);
}

uint64_t Generator::next_u64() {
    const uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate_left(state_[3], 45);
    return result;
}

int64_t Generator::integer(int64_t bound) {
    if (bound <= 0) throw std::invalid_argument("Generator::integer: bound must be positive");
    // Rejection sampling: draws in the incomplete top block would favour small values.
    const uint64_t range = static_cast<uint64_t>(bound);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t draw;
    do draw = next_u64();
    while (draw >= limit);
    return static_cast<int64_t>(draw % range);
}

float Generator::uniform() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

float Generator::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return static_cast<float>(spare_);
    }
    // u1 in (0, 1] so the logarithm is finite.
    const double u1 = (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * M_PI * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return static_cast<float>(radius * std::cos(angle));
}

}  // namespace wai
