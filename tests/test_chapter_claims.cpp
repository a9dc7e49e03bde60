// Tests of experiment/chapter_claims: Student's t factors against published values, and each verdict
// (holds, fails, not settled) on made-up seeds whose answer is known, for two and for ten seeds.
// Leaves out the figures of a real experiment (make experiment writes them into the summary).
#include "tests/catch.hpp"

#include <string>
#include <vector>

#include "experiment/chapter_claims.hpp"

using namespace wai;

namespace {

const std::vector<std::string> every_scheme = {"none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5",
                                               "alibi:0.0625"};

// Every run of every seed at the chapter's own means (roughly), then `change` applied.
SeedFigures chapter_like(size_t seeds) {
    SeedFigures runs;
    for (const std::string& task : {std::string("lag"), std::string("seen")})
        for (const std::string& scheme : every_scheme) runs[{task, scheme}] = std::vector<std::vector<double>>(seeds);
    for (size_t s = 0; s < seeds; ++s) {
        runs[{"lag", "none"}][s] = {0.52, 0.34, 0.24, 0.16, 0.24};
        runs[{"lag", "sinusoid"}][s] = {1.0, 0.54, 0.31, 0.10, 0.31};
        runs[{"lag", "learned"}][s] = {1.0, 0.52, 0.29, 0.08, 0.29};
        runs[{"lag", "rope"}][s] = {1.0, 1.0, 0.999, 0.999, 1.0};
        runs[{"lag", "rope:1000000"}][s] = {1.0, 1.0, 1.0, 1.0, 1.0};
        runs[{"lag", "alibi:0.5"}][s] = {0.941, 0.938, 0.938, 0.938, 0.87};
        runs[{"lag", "alibi:0.0625"}][s] = {0.70, 0.635, 0.60, 0.585, 0.644};
        runs[{"seen", "none"}][s] = {0.997, 0.961, 0.82 + 0.01 * (s % 2), 0.75, 0.96};
        runs[{"seen", "sinusoid"}][s] = {1.0, 0.90, 0.72, 0.64, 0.72};
        runs[{"seen", "learned"}][s] = {1.0, 0.74, 0.63, 0.51, 0.63};
        runs[{"seen", "rope"}][s] = {1.0, 0.94, 0.815, 0.76, 0.845};
        runs[{"seen", "rope:1000000"}][s] = {1.0, 0.97, 0.85, 0.81, 0.885};
        runs[{"seen", "alibi:0.5"}][s] = {0.935, 0.88, 0.75, 0.69, 0.79};
        runs[{"seen", "alibi:0.0625"}][s] = {0.99, 0.94, 0.835, 0.785, 0.657};
    }
    return runs;
}

std::vector<uint64_t> first_seeds(size_t n) {
    std::vector<uint64_t> seeds;
    for (size_t i = 0; i < n; ++i) seeds.push_back(i);
    return seeds;
}

// The verdict cell of the row whose claim starts with `claim`.
std::string verdict(const std::string& section, const std::string& claim) {
    const size_t row = section.find("| " + claim);
    REQUIRE(row != std::string::npos);
    const std::string line = section.substr(row, section.find('\n', row) - row);
    const size_t end = line.rfind(" |"), start = line.rfind("| ", end - 1);
    return line.substr(start + 2, end - start - 2);
}

}  // namespace

TEST_CASE("student_t_95: the two-sided 95% factors of Student's t", "[claims]") {
    CHECK(student_t_95(1) == Approx(12.706));
    CHECK(student_t_95(3) == Approx(3.182));
    CHECK(student_t_95(9) == Approx(2.262));
    CHECK(student_t_95(30) == Approx(2.042));
    CHECK(student_t_95(1000) == Approx(1.960));
}

TEST_CASE("chapter claims: each verdict follows the interval over the seeds", "[claims]") {
    SECTION("the chapter's own figures, ten seeds: every claim holds") {
        const std::string md = chapter_claims_section(chapter_like(10), first_seeds(10));
        CHECK(md.find("| **fails** |") == std::string::npos);
        CHECK(md.find("| not settled |") == std::string::npos);
        CHECK(verdict(md, "lag: RoPE is perfect at every length (base 10,000)") == "holds");
        CHECK(verdict(md, "seen: rescaling hurts") == "holds");
    }
    SECTION("RoPE below 0.99 on every seed fails; a seed either side leaves it unsettled") {
        SeedFigures runs = chapter_like(10);
        for (auto& run : runs[{"lag", "rope"}]) run[2] = 0.95;
        CHECK(verdict(chapter_claims_section(runs, first_seeds(10)), "lag: RoPE is perfect at every length (base 10,000)") ==
              "**fails**");
        for (size_t s = 0; s < 10; ++s) runs[{"lag", "rope"}][s][2] = s % 2 ? 0.97 : 1.0;
        CHECK(verdict(chapter_claims_section(runs, first_seeds(10)), "lag: RoPE is perfect at every length (base 10,000)") ==
              "not settled");
    }
    SECTION("a strict claim with no difference at all does not hold") {
        SeedFigures runs = chapter_like(10);
        for (auto& run : runs[{"seen", "alibi:0.0625"}]) run[4] = run[2];  // scaling changes nothing
        CHECK(verdict(chapter_claims_section(runs, first_seeds(10)), "seen: rescaling hurts") == "**fails**");
    }
    SECTION("no positions 0.03 below RoPE on two seeds of 0.02 spread: not settled; on ten of the same spread: fails") {
        SeedFigures runs = chapter_like(10);
        for (size_t s = 0; s < 10; ++s) runs[{"seen", "none"}][s][2] = 0.815 - 0.03 + (s % 2 ? 0.01 : -0.01);
        SeedFigures two = runs;
        for (auto& [key, rows] : two) rows.resize(2);
        CHECK(verdict(chapter_claims_section(two, first_seeds(2)), "seen: no positions degrades") == "not settled");
        CHECK(verdict(chapter_claims_section(runs, first_seeds(10)), "seen: no positions degrades") == "**fails**");
    }
}
