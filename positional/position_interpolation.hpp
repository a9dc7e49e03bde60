// Position interpolation (Chen, Wong, Chen & Tian 2023, "Extending Context Window of Large Language
// Models via Positional Interpolation", arXiv:2306.15595): to run a RoPE model trained on L positions
// on s * L, squeeze the positions instead of extrapolating them, m -> m / s. Position m then turns
// pair i by (m / s) * theta_i = m * (theta_i / s): the same as dividing every frequency by s, which is
// how it is applied here. Every angle the extended model meets, at any distance up to s * L, is one
// training showed at a distance s times shorter; neighbours 1 apart now look 1/s apart.
// Leaves out the short fine-tuning the paper follows it with: here it is used at test time as is.
#pragma once
#include <vector>

namespace wai {

// theta_i -> theta_i / s for every pair; s >= 1, and s = 1 leaves RoPE as it is. (H/2) -> (H/2)
inline std::vector<double> position_interpolation(std::vector<double> frequencies, double s) {
    for (double& theta : frequencies) theta /= s;
    return frequencies;
}

}  // namespace wai
