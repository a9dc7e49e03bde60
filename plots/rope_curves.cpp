// rope_curves: the data for two pictures of RoPE's frequencies, from positional/rope.hpp and yarn_paper.hpp.
//   build/plots/rope_curves OUT_DIR   writes OUT_DIR/rope_score.dat and OUT_DIR/wavelengths.dat
// rope_score.dat: for the experiment's head (H = 64), the score of a query and a key that are both the
//   all-ones vector, d positions apart, over its value at d = 0: the mean of cos(d * theta_i) over the
//   pairs. It shrinks (with ripples) as d grows, the "long-term decay" of Su et al. 2021, and more
//   slowly for the larger base. Bases 10,000 and 1,000,000; d from 0 to 100,000 on a log-spaced grid.
// wavelengths.dat: 2 pi / theta_i for each pair i, the chapter's two bases 10,000 and 500,000 at
//   H = 128 (where-am-i, "The frequencies, and longer contexts"), then the experiment's bases 10,000
//   and 1,000,000 at H = 64 with r_i = 32 / lambda_i and the paper's ramp gamma(r_i) for training length 32
//   (yarn-paper, positional/yarn_paper.hpp).
// Leaves out drawing (plots/*.gp) and any trained model (plots/attention_maps.cpp).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "positional/rope.hpp"
#include "positional/yarn_paper.hpp"
#include "files/atomic_file.hpp"
#include "startup/openblas_startup.hpp"
#include "startup/output_check.hpp"

namespace {

// mean over pairs of cos(d * theta_i): the all-ones query's score with the all-ones key d back, / H.
double ones_score(double distance, const std::vector<double>& theta) {
    double total = 0.0;
    for (double t : theta) total += std::cos(distance * t);
    return total / static_cast<double>(theta.size());
}

std::vector<double> wavelengths(const std::vector<double>& theta) {
    std::vector<double> result;
    for (double t : theta) result.push_back(2.0 * std::numbers::pi / t);
    return result;
}

// Whole or not at all (files/atomic_file.hpp): a picture never reads half a file.
void write_file(const std::filesystem::path& path, const std::string& text) { wai::write_file_atomically(path.string(), text); }

std::string score_table() {
    const std::vector<double> small = wai::rope_frequencies(64, 10000.0), large = wai::rope_frequencies(64, 1000000.0);
    std::string text = "# distance  score/score(0) base 10,000  base 1,000,000   (H = 64, query = key = all ones)\n";
    char line[128];
    // Every distance up to 64, then 40 points per factor of ten: the ripples stay visible on a log axis.
    std::vector<double> distances;
    for (int d = 0; d <= 64; ++d) distances.push_back(d);
    for (double e = std::log10(64.0) + 0.025; e <= 5.0 + 1e-9; e += 0.025) distances.push_back(std::round(std::pow(10.0, e)));
    for (double d : distances) {
        std::snprintf(line, sizeof line, "%.0f %.6f %.6f\n", d, ones_score(d, small), ones_score(d, large));
        text += line;
    }
    return text;
}

std::string wavelength_table() {
    const std::vector<double> chapter_small = wavelengths(wai::rope_frequencies(128, 10000.0));
    const std::vector<double> chapter_large = wavelengths(wai::rope_frequencies(128, 500000.0));
    const std::vector<double> ours_small_theta = wai::rope_frequencies(64, 10000.0);
    const std::vector<double> ours_large_theta = wai::rope_frequencies(64, 1000000.0);
    const std::vector<double> ours_small = wavelengths(ours_small_theta), ours_large = wavelengths(ours_large_theta);
    const std::vector<double> r_small = wai::yarn_turns_within(ours_small_theta, 32);
    const std::vector<double> r_large = wai::yarn_turns_within(ours_large_theta, 32);
    std::string text =
        "# pair  lambda H=128 base 10,000  base 500,000 | H=64 base 10,000  base 1,000,000 | yarn-paper at L=32: r and gamma(r) "
        "for base 10,000, then for base 1,000,000 ('-' past pair 31)\n";
    char line[256];
    for (size_t i = 0; i < chapter_small.size(); ++i) {
        std::snprintf(line, sizeof line, "%zu %.6g %.6g", i, chapter_small[i], chapter_large[i]);
        text += line;
        if (i < ours_small.size())
            std::snprintf(line, sizeof line, " %.6g %.6g %.6g %.6g %.6g %.6g\n", ours_small[i], ours_large[i], r_small[i],
                          wai::yarn_ramp(r_small[i]), r_large[i], wai::yarn_ramp(r_large[i]));
        else std::snprintf(line, sizeof line, " - - - - - -\n");
        text += line;
    }
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    wai::prepare_process(argv);
    if (argc != 2 || argv[1][0] == '\0') {
        std::fprintf(stderr, "usage: rope_curves OUT_DIR (one folder, not empty)\n");
        return 2;
    }
    try {
        const std::filesystem::path out = argv[1];
        std::filesystem::create_directories(out);
        write_file(out / "rope_score.dat", score_table());
        write_file(out / "wavelengths.dat", wavelength_table());
        std::printf("plots: wrote %s and %s\n", (out / "rope_score.dat").c_str(), (out / "wavelengths.dat").c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rope_curves: %s\n", wai::one_line(e.what()).c_str());
        return 1;
    }
}
