// The chapter's claims about its experiment ("Positional Information: Absolute, Relative, RoPE",
// the blog post's section "A test: two tasks, four times the length"), each judged over the seeds:
// one number per seed (a figure, or a difference of two runs of the same seed), its mean, min..max
// and a 95% interval (Student's t over the seeds), and a verdict from the interval: "holds" when the
// whole interval is on the claim's side of its bound, "fails" when it is all on the other side, "not
// settled" when it straddles the bound (two seeds rarely settle a close claim; ten often do).
// Leaves out running anything and the table of figures itself (programs/collect_results.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wai {

// For each (task, scheme), one row per seed in seed order: the five figures of the table, accuracy at
// 32, 64, 128, at 128 on the positions past 32, and at 128 with scores x log128/log32.
using SeedFigures = std::map<std::pair<std::string, std::string>, std::vector<std::vector<double>>>;

// The markdown section "The chapter's claims over the seeds" for these runs.
std::string chapter_claims_section(const SeedFigures& runs, const std::vector<uint64_t>& seeds);

// The two-sided 95% interval's half-width factor of Student's t with `degrees` degrees of freedom
// (12.706 for 1, 2.262 for 9; 1.96 in the limit).
double student_t_95(int degrees);

}  // namespace wai
