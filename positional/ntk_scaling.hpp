// "NTK-aware" scaling (bloc97, r/LocalLLaMA, June 2023, "NTK-Aware Scaled RoPE allows LLaMA models to
// have extended (8k+) context size without any fine-tuning"; written out in Peng et al. 2023, the YaRN
// paper, arXiv:2309.00071): instead of dividing every frequency by s, raise the base,
//     base -> base * s^(H / (H - 2)),
// so theta_i = base^(-2i/H) changes by s^(-2i / (H - 2)): pair 0 (theta = 1) not at all, the last pair
// (i = H/2 - 1) by exactly 1/s, as position interpolation would, and the pairs between by a geometric
// blend. The fast pairs that tell neighbours apart keep their angles; the slow ones are squeezed.
// Leaves out the "dynamic" variant, which recomputes s from each sequence's length.
#pragma once
#include <cmath>
#include <cstdint>

namespace wai {

// The new base for head dimension H (even, >= 4) and factor s >= 1; s = 1 gives base back.
inline double ntk_scaled_base(double base, int64_t head_dim, double s) {
    return base * std::pow(s, static_cast<double>(head_dim) / static_cast<double>(head_dim - 2));
}

}  // namespace wai
