// The benchmark's clock and its one statistic: seconds since a time point on the steady clock, and
// the median of a set of timings (what every figure bench_step prints is). Leaves out the timing
// loops themselves (bench_step.cpp, bench/thread_scaling.cpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace wai::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The middle timing (the mean of the two middle ones for an even count); `v` not empty.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace wai::bench
