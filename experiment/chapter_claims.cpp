// The chapter's claims, judged over the seeds (see the header).
#include "experiment/chapter_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

namespace wai {

namespace {

enum Figure { at32 = 0, at64 = 1, at128 = 2, past32 = 3, scaled = 4 };

struct Claim {
    std::string text;       // the chapter's sentence, shortened
    std::string statistic;  // what one seed's number is
    std::function<double(const SeedFigures&, size_t seed)> value;
    bool at_least;  // the claim is value >= bound (else value <= bound)
    double bound;
    bool strict = false;  // > or < instead: a difference that must not be zero ("hurts", "more than")
};

double figure(const SeedFigures& runs, const std::string& task, const std::string& scheme, size_t seed, Figure f) {
    return runs.at({task, scheme}).at(seed).at(f);
}

std::string fixed(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3f", v);
    return s;
}

std::vector<Claim> claims() {
    auto lowest_lag = [](const std::string& scheme) {
        return [scheme](const SeedFigures& r, size_t s) {
            return std::min({figure(r, "lag", scheme, s, at32), figure(r, "lag", scheme, s, at64), figure(r, "lag", scheme, s, at128)});
        };
    };
    auto one = [](const std::string& task, const std::string& scheme, Figure f) {
        return [task, scheme, f](const SeedFigures& r, size_t s) { return figure(r, task, scheme, s, f); };
    };
    return {
        {"lag: RoPE is perfect at every length (base 10,000)", "lowest of its accuracies at 32, 64, 128", lowest_lag("rope"),
         true, 0.99},
        {"lag: RoPE is perfect at every length (base 1,000,000)", "lowest of its accuracies at 32, 64, 128",
         lowest_lag("rope:1000000"), true, 0.99},
        {"lag: sinusoids are near chance (1/16) past 32", "accuracy at 128 on the positions past 32",
         one("lag", "sinusoid", past32), false, 0.15},
        {"lag: the learned table is near chance (1/16) past 32", "accuracy at 128 on the positions past 32",
         one("lag", "learned", past32), false, 0.15},
        {"lag: ALiBi 1/2 is about 0.94 at every length: no lower", "lowest of its accuracies at 32, 64, 128",
         lowest_lag("alibi:0.5"), true, 0.92},
        {"lag: ALiBi 1/2 is about 0.94 at every length: flat", "accuracy at 32 minus at 128",
         [](const SeedFigures& r, size_t s) { return figure(r, "lag", "alibi:0.5", s, at32) - figure(r, "lag", "alibi:0.5", s, at128); },
         false, 0.02},
        {"seen: no positions degrades as much as RoPE or less, at 128", "no positions minus RoPE at 128, same seed",
         [](const SeedFigures& r, size_t s) { return figure(r, "seen", "none", s, at128) - figure(r, "seen", "rope", s, at128); },
         true, 0.0},
        {"seen: log-length scaling brings no positions back (to 0.96)", "no positions at 128 with scores x log128/log32",
         one("seen", "none", scaled), true, 0.95},
        {"seen: scaling restores no positions more than RoPE", "gain from scaling, no positions minus RoPE, same seed",
         [](const SeedFigures& r, size_t s) {
             return (figure(r, "seen", "none", s, scaled) - figure(r, "seen", "none", s, at128)) -
                    (figure(r, "seen", "rope", s, scaled) - figure(r, "seen", "rope", s, at128));
         },
         true, 0.0, true},
        {"seen: rescaling hurts the gentle ALiBi slope (1/16)", "alibi:0.0625 at 128, scaled minus unscaled",
         [](const SeedFigures& r, size_t s) {
             return figure(r, "seen", "alibi:0.0625", s, scaled) - figure(r, "seen", "alibi:0.0625", s, at128);
         },
         false, 0.0, true},
    };
}

}  // namespace

double student_t_95(int degrees) {
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (degrees < 1) return NAN;
    if (degrees <= 30) return table[degrees - 1];
    return degrees <= 60 ? 2.000 : degrees <= 120 ? 1.980 : 1.960;
}

std::string chapter_claims_section(const SeedFigures& runs, const std::vector<uint64_t>& seeds) {
    const size_t n = seeds.size();
    std::ostringstream md;
    md << "## The chapter's claims over the seeds\n\n"
       << "Each claim is judged by one number per seed: its mean, min..max and 95% interval over the " << n
       << " seeds (Student's t). It holds when the whole interval is on the claim's side of the bound, fails when "
          "the whole interval is on the other side, and is not settled when the interval straddles the bound"
       << (n < 2 ? " (one seed has no interval: judged by the value alone)" : "") << ".\n\n"
       << "| claim | each seed's number | bound | mean | min..max | 95% interval | verdict |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (const Claim& claim : claims()) {
        std::vector<double> values;
        for (size_t s = 0; s < n; ++s) values.push_back(claim.value(runs, s));
        double mean = 0;
        for (double v : values) mean += v / n;
        double squares = 0;
        for (double v : values) squares += (v - mean) * (v - mean);
        const double half = n >= 2 ? student_t_95(static_cast<int>(n) - 1) * std::sqrt(squares / (n - 1) / n) : 0;
        const double low = mean - half, high = mean + half;
        const auto [least, most] = std::minmax_element(values.begin(), values.end());
        const bool holds = claim.strict ? (claim.at_least ? low > claim.bound : high < claim.bound)
                                        : (claim.at_least ? low >= claim.bound : high <= claim.bound);
        const bool fails = claim.strict ? (claim.at_least ? high <= claim.bound : low >= claim.bound)
                                        : (claim.at_least ? high < claim.bound : low > claim.bound);
        const char* side = claim.at_least ? (claim.strict ? "> " : ">= ") : (claim.strict ? "< " : "<= ");
        md << "| " << claim.text << " | " << claim.statistic << " | " << side << fixed(claim.bound)
           << " | " << fixed(mean) << " | " << fixed(*least) << ".." << fixed(*most) << " | "
           << (n >= 2 ? fixed(low) + ".." + fixed(high) : "n/a") << " | "
           << (holds ? "holds" : fails ? "**fails**" : "not settled") << " |\n";
    }
    return md.str();
}

}  // namespace wai
