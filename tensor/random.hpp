// Generator: a seeded pseudo-random source that gives the same numbers on every machine.
// xoshiro256** seeded through splitmix64, with our own uniform and Box-Muller normal, because the
// standard library's distributions are allowed to differ between implementations.
// Leaves out: cryptographic strength, and any global generator (every caller passes its own).
#pragma once
#include <cstdint>

namespace wai {

class Generator {
public:
    explicit Generator(uint64_t seed);

    uint64_t next_u64();
    // A uniform integer in [0, bound), without modulo bias.
    int64_t integer(int64_t bound);
    // A uniform float in [0, 1): the top 24 bits of the next draw, so every value is exact in float.
    float uniform();
    float uniform(float low, float high) { return low + (high - low) * uniform(); }
    // A standard normal draw (Box-Muller in double precision; the second draw is kept for the next call).
    float normal();

private:
    uint64_t state_[4];
    bool has_spare_ = false;
    double spare_ = 0.0;
};

}  // namespace wai
