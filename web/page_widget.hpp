// The blog's widget, from the engine: the chapter's own q and k (lesson 05's data) with the query at
// m and the key at n, scored with RoPE, with sinusoids added and with ALiBi's penalty, and the rotation
// itself pair by pair for the widget's drawing. Positions 0..255, RoPE's base 10000.
// Leaves out the drawing (web/page.js).
#pragma once

#include <string>

namespace page {

// {"m", "n", "distance", "dot", "rope", "sinusoid", "alibi", "head_dim", "base", "positions"}, or an error.
std::string position_scores(int m, int n, double slope);

// {"m", "n", "pairs": [{"theta", "q", "k", "q_turned", "k_turned", "dot"}], "rope"}, or an error.
std::string rotation_pairs(int m, int n);

}  // namespace page
