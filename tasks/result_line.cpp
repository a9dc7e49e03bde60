// Result lines: formatting with fixed widths and three decimals, and a strict parser.
// Leaves out tolerance for any variation on what the writer produces (spacing, leading zeros).
#include "tasks/result_line.hpp"

#include <cstdio>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace wai {

std::string format_result_line(const RunConfig& c, const RunResult& r) {
    // A context extension tested is named after the scheme: "rope+yarn:4".
    const std::string scheme = r.extension.empty() ? c.scheme : c.scheme + "+" + r.extension;
    // Padded to 4 and 12 characters, never cut: a scheme of any length stays whole.
    const auto padded = [](const std::string& text, size_t width) {
        return text.size() < width ? text + std::string(width - text.size(), ' ') : text;
    };
    std::string line = padded(c.task, 4) + " " + padded(scheme, 12) + " seed " + std::to_string(c.seed) + ": length ";
    int64_t longest = 0;
    for (size_t i = 0; i < c.test_lengths.size(); ++i) {
        line += (i ? " / " : "") + std::to_string(c.test_lengths[i]);
        longest = std::max(longest, c.test_lengths[i]);
    }
    line += ":";
    char number[32];
    for (size_t i = 0; i < r.accuracy.size(); ++i) {
        std::snprintf(number, sizeof number, "%s%.3f", i ? " / " : " ", r.accuracy[i]);
        line += number;
    }
    const std::string L = std::to_string(longest), train = std::to_string(c.train_length);
    // With no test length past the training length there are no such positions: "n/a", not 0.
    if (r.has_past_train) std::snprintf(number, sizeof number, "%.3f", r.past_train_accuracy);
    else std::snprintf(number, sizeof number, "n/a");
    line += "; at " + L + ", positions past " + train + ": " + number;
    std::snprintf(number, sizeof number, "%.3f", r.scaled_accuracy);
    line += "; scores x log" + L + "/log" + train + ": " + number;
    return line;
}

static std::vector<std::string> split(const std::string& text, const std::string& separator) {
    std::vector<std::string> parts;
    size_t start = 0, at;
    while ((at = text.find(separator, start)) != std::string::npos) {
        parts.push_back(text.substr(start, at - start));
        start = at + separator.size();
    }
    parts.push_back(text.substr(start));
    return parts;
}

std::optional<ResultLine> parse_result_line(const std::string& line) {
    static const std::regex pattern(
        R"(^(\S+) +(\S+) +seed (\d+): length ([0-9 /]+): ([0-9. /]+); at (\d+), positions past (\d+): (\d\.\d{3}|n/a); )"
        R"(scores x log(\d+)/log(\d+): (\d\.\d{3})$)");
    std::smatch m;
    if (!std::regex_match(line, m, pattern)) return std::nullopt;
    // The pattern admits digit runs of any length: one too long for its integer is refused, not thrown.
    try {
        ResultLine r;
        r.task = m[1];
        r.scheme = m[2];
        r.seed = std::stoull(m[3]);
        for (const std::string& s : split(m[4], " / ")) {
            if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
            r.lengths.push_back(std::stoll(s));
        }
        for (const std::string& s : split(m[5], " / ")) {
            if (!std::regex_match(s, std::regex(R"(\d\.\d{3})"))) return std::nullopt;
            r.accuracy.push_back(std::stod(s));
        }
        r.train_length = std::stoll(m[7]);
        r.has_past_train = m[8] != "n/a";
        r.past_train = r.has_past_train ? std::stod(m[8]) : 0.0;
        r.scaled = std::stod(m[11]);
        const int64_t longest = *std::max_element(r.lengths.begin(), r.lengths.end());
        if (r.lengths.size() != r.accuracy.size() || std::stoll(m[6]) != longest || std::stoll(m[9]) != longest ||
            std::stoll(m[10]) != r.train_length)
            return std::nullopt;
        // Exactly as the writer writes it: its spacing ("lag  rope" padded, not "lag rope"), no leading zeros.
        RunConfig written;
        written.task = r.task, written.scheme = r.scheme, written.seed = r.seed;
        written.test_lengths = r.lengths, written.train_length = r.train_length;
        RunResult figures;
        figures.accuracy = r.accuracy;
        figures.has_past_train = r.has_past_train, figures.past_train_accuracy = r.past_train, figures.scaled_accuracy = r.scaled;
        if (format_result_line(written, figures) != line) return std::nullopt;
        return r;
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
}

std::string impossible_figures(const ResultLine& r) {
    std::vector<double> figures = r.accuracy;
    if (r.has_past_train) figures.push_back(r.past_train);
    figures.push_back(r.scaled);
    for (double a : figures)
        if (!(a >= 0 && a <= 1)) return "an accuracy outside [0, 1]";  // NaN fails too
    const auto longest = std::max_element(r.lengths.begin(), r.lengths.end());
    if (!r.has_past_train || longest == r.lengths.end() || *longest <= r.train_length) return "";
    const double L = static_cast<double>(*longest), past = static_cast<double>(*longest - r.train_length);
    const double whole = r.accuracy[static_cast<size_t>(longest - r.lengths.begin())], rounding = 0.0005;
    char text[160];
    if (r.past_train * past > (whole + rounding) * L + rounding * past) {
        std::snprintf(text, sizeof text, "at %lld, positions past %lld score %.3f, more than the whole length's %.3f allows",
                      static_cast<long long>(*longest), static_cast<long long>(r.train_length), r.past_train, whole);
        return text;
    }
    if (whole - rounding > 1.0 - (1.0 - r.past_train - rounding) * past / L) {
        std::snprintf(text, sizeof text, "at %lld, the whole length scores %.3f, more than positions past %lld at %.3f allow",
                      static_cast<long long>(*longest), whole, static_cast<long long>(r.train_length), r.past_train);
        return text;
    }
    return "";
}

}  // namespace wai
