// The checker of the RoPE exercise: runs your apply_rope and exercise_scores (rope_exercise.cpp) and
// compares them with the library's rotation (positional/rope.hpp rope_rotate). Its last line is the verdict:
//   rope exercise: not solved yet   exit 0: a part is still as the scaffold left it (a hint says what next)
//   rope exercise: wrong answer     exit 1: a part you wrote disagrees with the library (where, by how much)
//   rope exercise: solved           exit 0
// apply_rope is compared directly, not only through the four scores: with the same vector as query and
// key, pair i adds |pair i|^2 cos(distance * theta_i) to the score whichever way it turns, so some wrong
// rotations (turning backwards, halves not interleaved back) still give the right four numbers.
// Leaves out timing and style: only the numbers are checked.
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "lessons/exercises/rope_exercise.hpp"
#include "lessons/lesson.hpp"
#include "positional/rope.hpp"
#include "tasks/openblas_startup.hpp"

using wai::RopePairing;
using wai::Shape;
using wai::Tensor;

namespace {

enum class Status { not_written, wrong, right };

constexpr int64_t head_dim = 8;  // H, as in the course
constexpr int64_t seq_len = 114;  // positions 0..113, all the exercise needs
constexpr double base = 10000.0;
// apply_rope's numbers are about 1 in size; float32 keeps 7 digits, and the course's float32 angles
// round differently from the library's double ones by far less than this.
constexpr double rotation_tolerance = 1e-4;

// The library's rotation of x (T, H), row t by t * theta_i.
Tensor library_rotation(const Tensor& x, RopePairing pairing, bool inverse = false) {
    const wai::RopeTable table = wai::make_rope_table(seq_len, wai::rope_frequencies(head_dim, base), pairing);
    return wai::rope_rotate(x, table, inverse);
}

// (T, H) -> (T, H), each row's pairs (2i, 2i+1) laid out as [all firsts, all seconds]: what concatenating
// rotated_even and rotated_odd gives instead of interleaving them back.
Tensor concatenated_halves(const Tensor& x) {
    const int64_t T = x.size(0), H = x.size(1);
    Tensor out(x.shape());
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < H / 2; ++i) {
            out[t * H + i] = x[t * H + 2 * i];
            out[t * H + H / 2 + i] = x[t * H + 2 * i + 1];
        }
    return out;
}

bool close(const Tensor& a, const Tensor& b, double tolerance) {
    for (int64_t j = 0; j < a.numel(); ++j)
        if (!(std::abs(static_cast<double>(a[j]) - b[j]) <= tolerance)) return false;  // NaN is not close
    return true;
}

// (T, H): `vector` (H) on every row.
Tensor repeated_rows(const Tensor& vector, int64_t T) {
    Tensor rows(Shape{T, vector.numel()});
    for (int64_t j = 0; j < rows.numel(); ++j) rows[j] = vector[j % vector.numel()];
    return rows;
}

double row_dot(const Tensor& a, int64_t m, int64_t n) {
    double total = 0.0;
    for (int64_t c = 0; c < head_dim; ++c) total += static_cast<double>(a[m * head_dim + c]) * a[n * head_dim + c];
    return total;
}

Status check_apply_rope(wai::Generator& generator) {
    std::printf("\n1. apply_rope, against the library's rope_rotate on a random (T, H) = (%lld, %lld) sequence\n",
                static_cast<long long>(seq_len), static_cast<long long>(head_dim));
    const Tensor x = Tensor::normal(Shape{seq_len, head_dim}, 0.0f, 1.0f, generator);  // (T, H)
    Tensor yours;
    try {
        yours = apply_rope(x, rope_angles(head_dim, seq_len, base));
    } catch (const std::exception& error) {
        std::printf("  apply_rope threw an exception: %s\n", error.what());
        return Status::wrong;
    }
    if (!yours.defined()) {
        std::printf("  not written yet (it returns an undefined Tensor)\n");
        return Status::not_written;
    }
    if (yours.shape() != x.shape()) {
        std::printf("  apply_rope returned shape %s for x of shape %s: it should keep x's shape\n",
                    yours.shape().str().c_str(), x.shape().str().c_str());
        return Status::wrong;
    }
    const Tensor expected = library_rotation(x, RopePairing::interleaved);
    int64_t wrong_numbers = 0, first_wrong = -1;
    for (int64_t j = 0; j < x.numel(); ++j)
        if (!(std::abs(static_cast<double>(yours[j]) - expected[j]) <= rotation_tolerance)) {
            ++wrong_numbers;
            if (first_wrong < 0) first_wrong = j;
        }
    if (wrong_numbers == 0) {
        std::printf("  right: it agrees with rope_rotate to %.0e at every position and dimension\n", rotation_tolerance);
        return Status::right;
    }
    const int64_t t = first_wrong / head_dim, c = first_wrong % head_dim;
    std::printf("  wrong: first at position %lld, dimension %lld: yours %+.6f, library %+.6f (off by %.3g); "
                "%lld of %lld numbers differ\n",
                static_cast<long long>(t), static_cast<long long>(c), yours[first_wrong], expected[first_wrong],
                std::abs(static_cast<double>(yours[first_wrong]) - expected[first_wrong]),
                static_cast<long long>(wrong_numbers), static_cast<long long>(x.numel()));
    if (t == 0) std::printf("  hint: at position 0 every angle is 0, so the output must equal the input there\n");
    if (close(yours, x, rotation_tolerance))
        std::printf("  hint: it returns x unchanged: nothing is rotated\n");
    else if (close(yours, library_rotation(x, RopePairing::interleaved, /*inverse=*/true), rotation_tolerance))
        std::printf("  hint: every pair turns backwards: check the signs of the sin terms\n");
    else if (close(yours, concatenated_halves(expected), rotation_tolerance))
        std::printf("  hint: the rotated halves are side by side; interleave them back: even i at 2i, odd i at 2i + 1\n");
    else if (close(yours, library_rotation(x, RopePairing::half_split), rotation_tolerance))
        std::printf("  hint: it pairs dimension i with i + H/2 (Llama's rotate_half); the course pairs 2i with 2i + 1\n");
    return Status::wrong;
}

struct ScoreEntry {
    const char* name;
    int64_t query, key;
    double yours, expected;
};

Status check_scores(wai::Generator& generator) {
    std::printf("\n2. the four dot products, one vector v as query and key\n");
    const Tensor v = Tensor::normal(Shape{head_dim}, 0.0f, 1.0f, generator);  // (H)
    RopeScores yours;
    try {
        yours = exercise_scores(v);
    } catch (const std::exception& error) {
        std::printf("  exercise_scores threw an exception: %s\n", error.what());
        return Status::wrong;
    }
    if (std::isnan(yours.query3_key3) && std::isnan(yours.query3_key103) && std::isnan(yours.query13_key13) &&
        std::isnan(yours.query13_key113)) {
        std::printf("  not written yet (all four are still NaN)\n");
        return Status::not_written;
    }
    const Tensor rotated = library_rotation(repeated_rows(v, seq_len), RopePairing::interleaved);  // (T, H)
    const ScoreEntry entries[] = {
        {"query3_key3", 3, 3, yours.query3_key3, row_dot(rotated, 3, 3)},
        {"query3_key103", 3, 103, yours.query3_key103, row_dot(rotated, 3, 103)},
        {"query13_key13", 13, 13, yours.query13_key13, row_dot(rotated, 13, 13)},
        {"query13_key113", 13, 113, yours.query13_key113, row_dot(rotated, 13, 113)},
    };
    // Scores are of the size of |v|^2 (the score at distance 0 is exactly that).
    const double tolerance = 1e-4 * entries[0].expected;
    Status status = Status::right;
    for (const ScoreEntry& e : entries) {
        const double off = std::abs(e.yours - e.expected);
        const bool right = off <= tolerance;
        std::printf("  %-15s query %lld, key %lld: yours %+.5f, expected %+.5f  %s", e.name,
                    static_cast<long long>(e.query), static_cast<long long>(e.key), e.yours, e.expected,
                    right ? "ok\n" : "WRONG");
        if (!right) {
            if (std::isnan(e.yours)) std::printf(" (not computed: still NaN)\n");
            else std::printf(" (off by %.3g, tolerance %.1g)\n", off, tolerance);
            status = Status::wrong;
        }
    }
    // The exercise's own question, asked of your numbers: is each pair equal?
    for (int pair = 0; pair < 2; ++pair) {
        const ScoreEntry &first = entries[pair], &shifted = entries[pair + 2];
        const double gap = std::abs(first.yours - shifted.yours);
        std::printf("  your pair at distance %lld: %s and %s %s (they differ by %.3g)\n",
                    static_cast<long long>(first.key - first.query), first.name, shifted.name,
                    gap <= tolerance ? "are equal" : "are NOT equal", gap);
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    wai::prepare_process(argv);
    lesson::take_no_arguments(argc, argv);
    std::printf("RoPE exercise (llm-mastery-23): your code in lessons/exercises/rope_exercise.cpp\n");
    wai::Generator generator(2023);
    const Status rotation = check_apply_rope(generator);
    const Status scores = check_scores(generator);
    std::printf("\n");
    if (rotation == Status::wrong || scores == Status::wrong) {
        std::printf("rope exercise: wrong answer (see above: what differs, where, by how much)\n");
        return 1;
    }
    if (rotation == Status::not_written) {
        std::printf("hint: start with apply_rope: take the even and the odd columns, turn each pair by its angle,\n"
                    "      and put the results back at 2i and 2i + 1. Then `make exercises` again.\n");
        std::printf("rope exercise: not solved yet\n");
        return 0;
    }
    if (scores == Status::not_written) {
        std::printf("hint: apply_rope is right; now exercise_scores: rotate the vector to every position of a\n"
                    "      sequence of 114, and dot the rows 3 and 3, 3 and 103, 13 and 13, 13 and 113.\n");
        std::printf("rope exercise: not solved yet\n");
        return 0;
    }
    std::printf("rope exercise: solved (both pairs are equal: the score depends only on the distance)\n");
    return 0;
}
