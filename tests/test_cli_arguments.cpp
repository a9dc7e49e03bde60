// train_position's command line, run as a user runs it: each bad argument (unknown, missing, empty,
// repeated, out of range, a number outside the one syntax) is refused with one line on stderr and
// exit code 2; a long scheme never cuts the result line.
// Leaves out the other programs' arguments (tests/test_cli_tools.cpp, tests/test_cli_collectors.cpp) and bad weight files
// (tests/test_weights_programs.cpp).
#include "tests/catch.hpp"

#include <string>
#include <vector>

#include "tests/programs.hpp"

using namespace wai::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

TEST_CASE("train_position: each bad argument is refused with one line and exit code 2", "[cli]") {
    Folder folder("bad_arguments");
    struct Case {
        const char* line;
        const char* message;
    };
    const Case cases[] = {
        {"foo none 0", "unknown task 'foo': the tasks are lag and seen"},
        {"<empty> none 0", "unknown task ''"},
        {"lag rope:abc 0", "bad position scheme 'rope:abc': 'abc' is not a number; valid forms: none, sinusoid"},
        {"lag alibi:-1 0", "bad position scheme 'alibi:-1': an ALiBi slope must be a normal float32 number above 0, from 1.2e-38 to 3.4e38; valid forms"},
        {"lag pos 0", "unknown scheme 'pos'; valid forms"},
        {"lag rope: 0", "bad position scheme 'rope:'"},
        {"lag alibi:nan 0", "bad position scheme 'alibi:nan'"},
        {"lag none", "expected TASK SCHEME SEED, got 2 positional arguments"},
        {"lag none 0 7", "expected TASK SCHEME SEED, got 4 positional arguments"},
        {"lag none 0 --steps", "--steps needs a value"},
        {"lag none 0 --load", "--load needs a value"},
        {"lag none 0 --test-lens", "--test-lens needs a value"},
        {"lag none 0 --stpes 5", "unknown flag '--stpes'"},
        {"lag none 0 --steps 0", "--steps must be from 1 to 100000, got 0 (0 is allowed with --load"},
        {"lag none 0 --steps -5", "--steps must be from 1 to 100000 (0 with --load: the loaded weights tested), got -5"},
        {"lag none 0 --batch 0", "--batch must be from 1 to 4096, got 0"},
        {"lag none 0 --batch -1", "--batch must be from 1 to 4096, got -1"},
        {"lag none 0 --dim 0", "--dim must be from 1 to 4096, got 0"},
        {"lag none 0 --layers 0", "--layers must be from 1 to 64, got 0"},
        {"lag none 0 --heads 0", "--heads must be from 1 to 4096, got 0"},
        {"lag none 0 --mlp -3", "--mlp must be from 1 to 16384, got -3"},
        {"lag none 0 --eval-seqs 0", "--eval-seqs must be from 1 to 65536, got 0"},
        {"lag none 0 --train-len 0", "--train-len must be from 2 to 4096, got 0"},
        {"lag none 0 --test-lens 0,64", "a test length must be from 1 to 4096, got 0"},
        {"lag none 0 --test-lens 32,-64", "a test length must be from 1 to 4096, got -64"},
        {"lag none 0 --lag 0", "--lag must be from 1 to 4096, got 0"},
        {"lag none 0 --vocab 0", "--vocab must be from 1 to 65536, got 0"},
        {"lag none 0 --threads 0", "--threads must be a whole number from 1 to "},
        {"lag none 0 --kernels fused", "unknown kernels 'fused': the choices are plain (the chain of plain ops) and fast"},
        {"lag none 0 --kernels", "--kernels needs a value"},
        {"lag none 0 --lr 0", "--lr must be a positive number"},
        {"lag none 0 --lr -0.001", "--lr must be a positive number"},
        // Sizes far too large: refused before they overflow a product (--batch 2^62 was a segfault)
        // or fill the machine's memory.
        {"lag none 0 --dim 100000000", "--dim must be from 1 to 4096, got 100000000"},
        {"lag none 0 --batch 4611686018427387904", "--batch must be from 1 to 4096, got 4611686018427387904"},
        {"lag none 0 --train-len 1000000000", "--train-len must be from 2 to 4096, got 1000000000"},
        {"lag none 0 --layers 100000000000", "--layers must be from 1 to 64, got 100000000000"},
        {"lag none 0 --mlp 10000000000", "--mlp must be from 1 to 16384, got 10000000000"},
        {"lag none 0 --vocab 3000000000", "--vocab must be from 1 to 65536, got 3000000000"},
        {"lag none 0 --eval-seqs 1000000000000", "--eval-seqs must be from 1 to 65536, got 1000000000000"},
        {"lag none 0 --test-lens 32,1000000000", "a test length must be from 1 to 4096, got 1000000000"},
        {"lag none 0 --threads 5000", "CPUs this process may run on), got '5000'"},
        {"lag none 0 --steps abc", "--steps needs an integer, got 'abc'"},
        {"lag none 0 --steps 1e3", "--steps needs an integer, got '1e3'"},
        {"lag none 0 --steps 3.5", "--steps needs an integer, got '3.5'"},
        {"lag none 0 --steps <empty>", "--steps needs a value, got an empty one"},
        {"lag none 0 --dim 0x40", "--dim needs an integer, got '0x40'"},
        // Past 64 bits, each number is refused with its own range, as one just past it is.
        {"lag none 0 --steps 99999999999999999999", "--steps must be from 1 to 100000 (0 with --load: the loaded weights tested), got 99999999999999999999"},
        {"lag none 0 --test-lens 32,-99999999999999999999", "a test length must be from 1 to 4096, got -99999999999999999999"},
        {"lag none 9223372036854775808", "SEED must be an integer from 0 to 9223372036854775807, got '9223372036854775808'"},
        {"lag none x", "SEED needs an integer, got 'x'"},
        {"lag none -1", "SEED must be an integer from 0 to 9223372036854775807, got '-1'"},
        {"lag none 0 --lr abc", "--lr needs a number, got 'abc'"},
        {"lag none 0 --lr nan", "--lr needs a number, got 'nan'"},
        {"lag none 0 --lr inf", "--lr needs a number, got 'inf'"},
        {"lag none 0 --lr 1e300", "--lr 1e300 is past the largest float32"},
        {"lag none 0 --test-lens 32,,64", "--test-lens needs an integer, got ''"},
        {"lag none 0 --test-lens 32,64,", "--test-lens needs a list like 32,64,128, got '32,64,'"},
        {"lag none 0 --test-lens abc", "--test-lens needs an integer, got 'abc'"},
        {"lag learned 0 --test-lens 32,129", "test length 129 is past the learned table's 128 rows"},
        {"lag learned 0 --train-len 200 --test-lens 64", "--train-len 200 is past the learned table's 128 rows"},
        {"lag none 0 --dim 64 --heads 3", "--heads 3 does not divide --dim 64"},
        {"lag rope 0 --dim 6 --heads 2", "rope needs an even head dimension, got 3"},
        {"lag none 0 --lag 32", "--lag 32 must be smaller than --train-len 32"},
        {"lag none 0 --lag 40 --train-len 32", "--lag 40 must be smaller than --train-len 32"},
        {"lag none 0 --test-lens 3", "test length 3 must be longer than --lag 3"},
        {"seen none 0 --vocab 1", "--vocab must be at least 2 for seen"},
        {"lag none 0 --save /nonexistent/weights.safetensors", "the folder '/nonexistent' does not exist"},
        {"seen none 0 --train-len 1", "and log 1 = 0"},
        {"lag none 0 --lr 0", "--lr must be a positive number, got '0'"},
        {"lag none 0 --lr 1e-50", "--lr 1e-50 is below the smallest normal float32, about 1.2e-38"},
        // --help with other arguments (make's RUN_FLAGS under --check-flags) is no help text and exit 0.
        {"lag none 0 --steps 5 -h", "-h stands alone (train_position --help), got it with other arguments"},
        {"lag none 0 --help --check-flags", "--help stands alone"},
        {"lag none 0 --save -h", "-h stands alone"},
        // A flag's value is never the next flag: --save --quiet would write a file named --quiet.
        {"lag none 0 --save --quiet", "--save needs a value, got the flag '--quiet'"},
        {"lag none 0 --steps --lr 0.01", "--steps needs a value, got the flag '--lr'"},
        // Checked for seen too, which has no use for --lag: a typo is refused, not silently ignored.
        {"seen none 0 --lag -5", "--lag must be from 1 to 4096, got -5"},
        {"seen none 0 --lag 99999999", "--lag must be from 1 to 4096, got 99999999"},
    };
    for (const Case& c : cases) {
        INFO("train_position " << c.line);
        check_one_line_refusal(run(folder, "train_position", with_tiny_sizes(c.line)), 2, "train_position", c.message);
    }
    write_bytes(folder.file("plain.txt"), "a file, not a folder\n");
    check_one_line_refusal(run(folder, "train_position", with_tiny_sizes("lag none 0 --save plain.txt/w.safetensors")), 2,
                           "train_position", "'plain.txt' is a file, not a folder");
    const Outcome help = run(folder, "train_position", {"--help"});
    CHECK(help.status == 0);
    CHECK_THAT(help.out, StartsWith("usage: train_position TASK SCHEME SEED"));
    CHECK_THAT(help.out, ContainsSubstring("| mine (positional/mine.cpp"));  // the README sends learners there
}

TEST_CASE("train_position: every flag refuses a missing, empty or repeated value, and numbers outside the one syntax", "[cli]") {
    Folder folder("flag_classes");
    const std::vector<std::string> integer_flags = {"--steps", "--batch", "--train-len", "--dim", "--layers", "--heads",
                                                    "--mlp", "--lag", "--vocab", "--eval-seqs"};
    const std::vector<std::string> other_flags = {"--test-lens", "--lr", "--load", "--save", "--extend", "--kernels", "--threads"};
    const std::string junk = "\xff\xfe\n\x1b[31m";  // not UTF-8, a newline and a terminal escape
    int cases = 0;
    const auto refused = [&](const std::vector<std::string>& args, const std::string& fragment) {
        INFO("train_position " << [&] { std::string s; for (auto& a : args) s += "[" + a + "] "; return s; }());
        check_one_line_refusal(run(folder, "train_position", args), 2, "train_position", fragment);
        ++cases;
    };
    for (const std::vector<std::string>* flags : {&integer_flags, &other_flags})
        for (const std::string& flag : *flags) {
            refused(tiny_with({flag}), flag + " needs a value");
            refused(tiny_with({flag, ""}), flag + " needs a value, got an empty one");
            const std::string good = flag == "--test-lens" ? "32,64" : flag == "--lr" ? "0.01" : flag == "--extend" ? "pi"
                                     : flag == "--kernels" ? "fast" : flag == "--load" || flag == "--save" ? "w" : "4";
            refused(tiny_with({flag, good, flag, good}), flag + " is given twice");
            // Junk is quoted with its bytes escaped, so the message stays one line. (Junk is a valid
            // file name for --save; for --load it names no file, a failed run, exit code 1.)
            if (flag == "--save") continue;
            const Outcome o = run(folder, "train_position", tiny_with({flag, junk}, "lag rope 0"));
            check_one_line_refusal(o, flag == "--load" ? 1 : 2, "train_position", "\\xff\\xfe\\x0a\\x1b[31m");
            ++cases;
        }
    refused(tiny_with({"--quiet", "--quiet"}), "--quiet is given twice");
    // Integers: digits with an optional leading '-', nothing else; past 64 bits, the flag's own range.
    const auto needs_integer = [](const std::string& what, const std::string& value) {
        return what + " needs an integer, got '" + value + "'";
    };
    for (const std::string& flag : integer_flags) {
        for (const std::string value : {"+5", " 5", "5 ", "0x10", "1e3", "5.0", "-", "--5"})
            refused(tiny_with({flag, value}), needs_integer(flag, value));
        for (const std::string value : {"99999999999999999999", "-99999999999999999999"})
            refused(tiny_with({flag, value}), flag + " must be from ");
    }
    refused(tiny_with({"--heads", "-5"}), "--heads must be from 1 to 4096, got -5");
    refused(tiny_with({"--lag", "-1"}), "--lag must be from 1 to 4096, got -1");
    for (const std::string value : {"+0.01", " 0.01", "0.01 ", "0x1p-7", "1e", ".", "-.", "infinity"})
        refused(tiny_with({"--lr", value}), "--lr needs a number, got '" + value + "'");
    // Past a double's range, as past a float's: the same line as 3.5e38 or 1e-50 gets.
    refused(tiny_with({"--lr", "1e400"}), "--lr 1e400 is past the largest float32, about 3.4e38");
    refused(tiny_with({"--lr", "1e-400"}), "--lr 1e-400 is below the smallest normal float32, about 1.2e-38");
    refused(tiny_with({"--lr", "-0.01"}), "--lr must be a positive number");
    for (const std::string value : {"32,+64", "32, 64", "32 ,64", "0x20", "32,1e2"}) refused(tiny_with({"--test-lens", value}), "--test-lens needs an integer");
    for (const std::string value : {"+2", " 2", "2 ", "0x2", "1e1", "0", "-3", "99999999", "100000000000000000000"})
        refused(tiny_with({"--threads", value}), "--threads must be a whole number from 1 to ");
    for (const std::string seed : {"+5", " 5", "5 ", "0x10", "1e3", "-"})
        refused(concat({"lag", "none", seed}, tiny), needs_integer("SEED", seed));
    for (const std::string seed : {"-1", "99999999999999999999", "-99999999999999999999"})
        refused(concat({"lag", "none", seed}, tiny), "SEED must be an integer from 0 to 9223372036854775807, got '" + seed + "'");
    for (const std::string spec : {"rope:+100", "rope: 100", "rope:100 ", "alibi:0x1p-1", "rope:1e"})
        refused(concat({"lag", spec, "0"}, tiny), "is not a number");
    for (const std::string spec : {"pi:+2", "ntk: 2", "yarn:2 ", "pi:0x2"})
        refused(tiny_with({"--extend", spec}, "lag rope 0"), "is not a number");
    // Numbers past what they mean in float32 (the engine's numbers), or past the page's steps.
    // The bounds said are the bounds taken: just past either end is refused, though float32 would
    // hold rope:1.0000001 (as 1.00000012) and rope:3.402e38.
    for (const std::string spec : {"rope:1e308", "rope:1e400", "rope:1e-400", "rope:-1e400", "rope:1e39", "rope:1.00000001",
                                   "rope:1.0000001", "rope:1.00000019", "rope:3.402e38"})
        refused(concat({"lag", spec, "0"}, tiny), "a RoPE base must be a float32 number above 1, from 1.0000002 to 3.4e38");
    for (const std::string spec : {"alibi:1e39", "alibi:1e400", "alibi:1e-400", "alibi:1e-320", "alibi:1e-39", "alibi:1.19e-38",
                                   "alibi:3.40001e38"})
        refused(concat({"lag", spec, "0"}, tiny), "an ALiBi slope must be a normal float32 number above 0, from 1.2e-38 to 3.4e38");
    for (const std::string spec : {"rope:1.0000002", "rope:3.4e38", "alibi:1.2e-38"})
        CHECK(run(folder, "train_position", concat({"lag", spec, "0", "--check-flags"}, tiny)).status == 0);
    refused(concat({"lag", "alibi:1e37", "0"}, tiny), "alibi:1e37: the penalty, slope x distance, passes float32's largest number "
                                                       "(3.4e38) at distance 127; with these lengths the slope must be at most 2.67e+36");
    // The largest said is taken.
    CHECK(run(folder, "train_position", concat({"lag", "alibi:2.67e36", "0", "--check-flags"}, tiny)).status == 0);
    for (const std::string spec : {"pi:1e300", "pi:1e400", "ntk:1e-400", "yarn:-1e400", "ntk:4097", "yarn:100000", "yarn-paper:0.5"})
        refused(tiny_with({"--extend", spec}, "lag rope 0"), "the factor s must be from 1 to 4096");
    refused(tiny_with({"--steps", "1000000000000"}), "--steps must be from 1 to 100000 (0 with --load: the loaded weights tested), got 1000000000000");
    refused(tiny_with({"--train-len", "1"}, "seen none 0"), "--train-len must be from 2 to 4096, got 1: the scaled test multiplies the scores by log(test length) / log(train length), and log 1 = 0");
    CHECK(cases > 150);
    // And the one syntax still reads what it should.
    CHECK(run(folder, "train_position", tiny_with({"--lr", ".5e-3"}, "lag rope 007")).status == 0);
    CHECK(run(folder, "train_position", tiny_with({"--lr", "5E-4", "--test-lens", "32,064"}, "lag rope 0")).status == 0);
}

TEST_CASE("train_position: the result line is never cut, whatever the scheme's length", "[cli]") {
    Folder folder("long_scheme");
    const std::string scheme = "rope:10000.000000000000000000000000000000000000000000000000000000000000000000000000000000001";
    const Outcome o = run(folder, "train_position", tiny_with({"--extend", "yarn:1.25"}, "lag " + scheme + " 0"));
    REQUIRE(o.status == 0);
    CHECK_THAT(o.out, StartsWith("lag  " + scheme + "+yarn:1.25 seed 0: length 32 / 64 / 128: "));
    CHECK_THAT(o.out, Matches(".*; scores x log128/log32: [01]\\.[0-9]{3}\n"));
}
