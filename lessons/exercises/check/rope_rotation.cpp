// The checker of the RoPE rotation exercise: your apply_rope against the library's rotation
// (positional/rope.hpp rope_rotate) on a random (T, H) sequence, and the four dot products your
// rotation gives (shown, each pair equal or not); then your four dot products, and whether each pair
// is equal. apply_rope is compared directly, not only through the four scores:
// with the same vector as query and key, pair i adds |pair i|^2 cos(distance * theta_i) to the score
// whichever way it turns, so some wrong rotations (turning backwards, halves not interleaved back)
// still give the right four numbers. Known slips it names: nothing rotated, turning backwards, the
// rotated halves side by side, Llama's half-split pairing, x1 or x2 read from the other column of
// the pair, x1 and x2 swapped, both results written to one column, each pair's results swapped, row
// t turned by the angle of t - 1 or t + 1, and any other turn that keeps each pair's length (angles
// not from `angles`, such as another base); in the scores, unrotated vectors, only one of query and
// key rotated, a row off by one, and rows shifted together (2 and 102 for 3 and 103: RoPE scores them
// alike, so the rows are checked with rope_angles turned a little more the further the row, the probe
// of rope_rotation.hpp). Leaves out timing and style.
#include <cmath>
#include <cstdio>
#include <string>

#include "lessons/exercises/exercise.hpp"
#include "lessons/exercises/rope_rotation.hpp"
#include "positional/rope.hpp"

using wai::RopePairing;
using wai::Shape;
using wai::Tensor;

namespace {

constexpr int64_t head_dim = 8;   // H, as in the course
constexpr int64_t seq_len = 114;  // positions 0..113, all the exercise needs
constexpr double base = 10000.0;
// apply_rope's numbers are about 1 in size; float32 keeps 7 digits, and the course's float32 angles
// round differently from the library's double ones by far less than this.
constexpr double rotation_tolerance = 1e-4;

// The library's rotation of x (T, H), row t by t * theta_i.
Tensor library_rotation(const Tensor& x, RopePairing pairing, bool inverse = false) {
    const wai::RopeTable table = wai::make_rope_table(x.size(0), wai::rope_frequencies(head_dim, base), pairing);
    return wai::rope_rotate(x, table, inverse);
}

// (T, H) -> (T, H), each row's pairs (2i, 2i+1) laid out as [all firsts, all seconds]: what concatenating
// rotated_even and rotated_odd gives instead of interleaving them back.
Tensor concatenated_halves(const Tensor& x) {
    Tensor out(x.shape());
    for (int64_t t = 0; t < x.size(0); ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            out(t, i) = x(t, 2 * i);
            out(t, head_dim / 2 + i) = x(t, 2 * i + 1);
        }
    return out;
}

// x with one column of every pair copied over the other: the pair (x[2i], x[2i]) when from_even, else
// (x[2i+1], x[2i+1]). Rotated, it is what reading x1 and x2 from the same column gives.
Tensor one_column_twice(const Tensor& x, bool from_even) {
    Tensor out(x.shape());
    for (int64_t t = 0; t < x.size(0); ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i)
            out(t, 2 * i) = out(t, 2 * i + 1) = x(t, from_even ? 2 * i : 2 * i + 1);
    return out;
}

// The rotated pairs written back to the wrong columns: both results to column 2i + 1 (the second
// overwriting the first, column 2i left 0) when to_odd, both to 2i otherwise; or, when swapped, each
// pair's two results exchanged.
Tensor written_back(const Tensor& rotated, bool to_odd, bool swapped = false) {
    Tensor out(rotated.shape());
    for (int64_t t = 0; t < rotated.size(0); ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            const float even = rotated(t, 2 * i), odd = rotated(t, 2 * i + 1);
            if (swapped) {
                out(t, 2 * i) = odd;
                out(t, 2 * i + 1) = even;
            } else {
                out(t, to_odd ? 2 * i + 1 : 2 * i) = odd;
            }
        }
    return out;
}

// x with the two columns of every pair exchanged: what reading x1 from column 2i + 1 and x2 from 2i gives.
Tensor pair_columns_exchanged(const Tensor& x) {
    Tensor out(x.shape());
    for (int64_t t = 0; t < x.size(0); ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            out(t, 2 * i) = x(t, 2 * i + 1);
            out(t, 2 * i + 1) = x(t, 2 * i);
        }
    return out;
}

// The rotation with row t turned by (t + shift) * theta_i, in double: the angles of a row off by one.
// With clamp, a row before 0 is turned by 0 (what `t == 0 ? 0 : angles(t - 1, i)` gives).
Tensor rotation_with_rows_shifted(const Tensor& x, int64_t shift, bool clamp) {
    const std::vector<double> theta = wai::rope_frequencies(head_dim, base);
    Tensor out(x.shape());
    for (int64_t t = 0; t < x.size(0); ++t) {
        const int64_t position = clamp && t + shift < 0 ? 0 : t + shift;
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            const double angle = static_cast<double>(position) * theta[i], c = std::cos(angle), s = std::sin(angle);
            const double x1 = x(t, 2 * i), x2 = x(t, 2 * i + 1);
            out(t, 2 * i) = static_cast<float>(x1 * c - x2 * s);
            out(t, 2 * i + 1) = static_cast<float>(x1 * s + x2 * c);
        }
    }
    return out;
}

// Whether every pair (2i, 2i + 1) of every row of `turned` has the length it has in x: true of any
// rotation of the pairs, whatever its angles.
bool keeps_every_pair_length(const Tensor& x, const Tensor& turned) {
    if (!turned.defined() || turned.shape() != x.shape()) return false;
    for (int64_t t = 0; t < x.size(0); ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            const double before = std::hypot(x(t, 2 * i), x(t, 2 * i + 1));
            const double after = std::hypot(turned(t, 2 * i), turned(t, 2 * i + 1));
            if (!(std::abs(after - before) <= rotation_tolerance * (1.0 + before))) return false;
        }
    return true;
}

// (T, H): `vector` (H) on every row.
Tensor repeated_rows(const Tensor& vector, int64_t T) {
    Tensor rows(Shape{T, vector.numel()});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < vector.numel(); ++c) rows(t, c) = vector[c];
    return rows;
}

double row_dot(const Tensor& a, int64_t m, int64_t n) {
    double total = 0.0;
    for (int64_t c = 0; c < a.size(1); ++c) total += static_cast<double>(a(m, c)) * a(n, c);
    return total;
}

// Row m of a dotted with row n of b.
double rows_dot(const Tensor& a, int64_t m, const Tensor& b, int64_t n) {
    double total = 0.0;
    for (int64_t c = 0; c < a.size(1); ++c) total += static_cast<double>(a(m, c)) * b(n, c);
    return total;
}

// The exercise's four places, (query, key): two at distance 0, then two at distance 100.
struct Place {
    int64_t query, key;
};
constexpr Place places[] = {{3, 3}, {13, 13}, {3, 103}, {13, 113}};

// The course's four dot products from the learner's own rotation (so they show even before
// exercise_scores is written): v on every row, rotated by the learner's apply_rope, and the rows of
// each place dotted; each second one of a distance beside the first, equal or not.
void note_your_dot_products(exercise::Checker& checker, const Tensor& v, bool rotation_right) {
    const Tensor yours = apply_rope(repeated_rows(v, seq_len), rope_angles(head_dim, seq_len, base));  // (T, H)
    if (!yours.defined() || yours.shape() != Shape{seq_len, head_dim}) return;  // the rotation's check says so
    const double length_squared = row_dot(repeated_rows(v, 1), 0, 0);
    const double tolerance = 1e-4 * length_squared;
    char line[200];
    std::snprintf(line, sizeof line,
                  "the course's four dot products with your apply_rope (one random v of %lld numbers as both query and key, "
                  "|v|^2 = %.4f):",
                  static_cast<long long>(head_dim), length_squared);
    checker.note(line);
    double first_of_distance = 0.0;
    bool pairs_equal = true;
    for (int i = 0; i < 4; ++i) {
        const Place p = places[i];
        const double score = row_dot(yours, p.query, p.key);
        std::snprintf(line, sizeof line, "  q.k with the query at %3lld, the key at %3lld (distance %3lld): %9.4f",
                      static_cast<long long>(p.query), static_cast<long long>(p.key), static_cast<long long>(p.key - p.query), score);
        std::string text = line;
        if (i % 2 == 0) first_of_distance = score;
        else if (exercise::close(score, first_of_distance, tolerance))
            text += "   the same distance as the line above, and the same score, as it should be";
        else {
            text += "   the same distance as the line above, so it should be the same score, and is not";
            pairs_equal = false;
        }
        checker.note(text);
    }
    checker.note("  RoPE's point: a score depends only on the distance between query and key, not on where they sit "
                 "(at distance 0 it is |v|^2)");
    if (!rotation_right && pairs_equal)
        checker.note("  (some wrong rotations give equal pairs too, such as turning backwards: that is why your rotation "
                     "itself is compared above)");
}

// Rows 2 and 102 score exactly as 3 and 103 under RoPE, so right numbers do not show right rows. With
// the probe on (rope_angles.hpp), every row t is turned by 0.002 t^2 more, and a score depends on
// where the query and the key sit: your exercise_scores again, each distance-100 score against the
// named rows', and against every other pair of rows to say which ones yours took. (At distance 0 the
// score is |v|^2 at every position, whichever row: the distance-100 pair shows the rows.)
double probe(int64_t position) { return 0.002 * static_cast<double>(position) * static_cast<double>(position); }

void check_the_rows(exercise::Checker& checker, const Tensor& v, const RopeScores& unprobed) {
    checker.next_hint = "exercise_scores: rotate with rope_angles' angles and dot the rows named";
    exercise::rope_angles_probe = probe;
    const RopeScores probed = exercise_scores(v);
    exercise::rope_angles_probe = nullptr;
    // The checker's own rotation by the probed angles, in double.
    const std::vector<double> theta = wai::rope_frequencies(head_dim, base);
    Tensor rotated(Shape{seq_len, head_dim});
    for (int64_t t = 0; t < seq_len; ++t)
        for (int64_t i = 0; i < head_dim / 2; ++i) {
            const double angle = static_cast<double>(t) * theta[i] + probe(t);
            rotated(t, 2 * i) = static_cast<float>(v[2 * i] * std::cos(angle) - v[2 * i + 1] * std::sin(angle));
            rotated(t, 2 * i + 1) = static_cast<float>(v[2 * i] * std::sin(angle) + v[2 * i + 1] * std::cos(angle));
        }
    const double tolerance = 1e-4 * row_dot(rotated, 0, 0);
    if (exercise::close(probed.query3_key103, unprobed.query3_key103, 1e-9 * (1.0 + std::abs(unprobed.query3_key103))) &&
        !exercise::close(row_dot(rotated, 3, 103), unprobed.query3_key103, tolerance)) {
        checker.note("(your exercise_scores does not take its angles from rope_angles, so which rows it dots cannot be "
                     "seen: rows 2 and 102 score as 3 and 103 do)");
        return;
    }
    struct Named {
        const char* name;
        int64_t query, key;
        double yours;
    };
    for (const Named& e : {Named{"query3_key103", 3, 103, probed.query3_key103}, Named{"query13_key113", 13, 113, probed.query13_key113}}) {
        const std::string what = std::string("the rows of ") + e.name + ": row " + std::to_string(e.query) + " with row " +
                                 std::to_string(e.key) + " (seen with every row turned a little more the further it is)";
        if (exercise::close(e.yours, row_dot(rotated, e.query, e.key), tolerance)) {
            checker.ok(what);
            continue;
        }
        std::string found;
        for (int64_t q = 0; q < seq_len && found.empty(); ++q)
            for (int64_t k = 0; k < seq_len && found.empty(); ++k)
                if (q != k && exercise::close(e.yours, row_dot(rotated, q, k), tolerance))
                    found = "yours dots row " + std::to_string(q) + " with row " + std::to_string(k) +
                            (q == e.query - 1 && k == e.key - 1 ? ": positions count from 0, so the query at " +
                                                                      std::to_string(e.query) + " is row " + std::to_string(e.query)
                                                                : "") +
                            "; RoPE gives both the same score, which is why the numbers alone looked right";
        checker.wrong(what, "your score is not that of those rows",
                      found.empty() ? "dot row " + std::to_string(e.query) + " of the rotated sequence with row " + std::to_string(e.key)
                                    : found);
    }
}

void check(exercise::Checker& checker) {
    wai::Generator generator(2023);
    const Tensor x = Tensor::normal(Shape{seq_len, head_dim}, 0.0f, 1.0f, generator);  // (T, H)
    const Tensor v = Tensor::normal(Shape{head_dim}, 0.0f, 1.0f, generator);              // (H)
    checker.next_hint =
        "start with apply_rope: take the even and the odd columns, turn each pair by its angle, and put the "
        "results back at 2i and 2i + 1";
    const Tensor yours = apply_rope(x, rope_angles(head_dim, seq_len, base));
    const Tensor expected = library_rotation(x, RopePairing::interleaved);
    const bool rotation_right = checker.compare(
        "apply_rope on a random (114, 8) sequence, against the library's rope_rotate", yours, expected, rotation_tolerance,
        {{"it returns x unchanged: nothing is rotated", x},
         {"every pair turns backwards: check the signs of the sin terms (even: x1 cos - x2 sin; odd: x1 sin + x2 cos)",
          library_rotation(x, RopePairing::interleaved, /*inverse=*/true)},
         {"the rotated halves are side by side; interleave them back: even i at 2i, odd i at 2i + 1",
          concatenated_halves(expected)},
         {"it pairs dimension i with i + H/2 (Llama's rotate_half); the course pairs 2i with 2i + 1",
          library_rotation(x, RopePairing::half_split)},
         {"every odd column differs at position 0, where every angle is 0 and the rotation must leave x as it is: "
          "x2 is read from column 2i; x2 = x[..., 1::2] is the odd column, 2i + 1",
          library_rotation(one_column_twice(x, /*from_even=*/true), RopePairing::interleaved)},
         {"every even column differs at position 0, where every angle is 0 and the rotation must leave x as it is: "
          "x1 is read from column 2i + 1; x1 = x[..., ::2] is the even column, 2i",
          library_rotation(one_column_twice(x, /*from_even=*/false), RopePairing::interleaved)},
         {"every even column is 0: both results are written to column 2i + 1; rotated_even goes to 2i",
          written_back(expected, /*to_odd=*/true)},
         {"every odd column is 0: both results are written to column 2i; rotated_odd goes to 2i + 1",
          written_back(expected, /*to_odd=*/false)},
         {"each pair's two results are swapped (at position 0 too, where the rotation must leave x as it is): "
          "rotated_even goes to column 2i, rotated_odd to 2i + 1",
          written_back(expected, false, /*swapped=*/true)},
         {"x1 and x2 are swapped (at position 0 too, where the rotation must leave x as it is): x1 = x[..., ::2] is "
          "the even column, 2i, and x2 = x[..., 1::2] the odd one, 2i + 1",
          library_rotation(pair_columns_exchanged(x), RopePairing::interleaved)},
         {"row t is turned by the angles of row t - 1: row t takes angles(t, i), and row 0 is left as it is",
          rotation_with_rows_shifted(x, -1, /*clamp=*/true)},
         {"row t is turned by the angles of row t - 1: row t takes angles(t, i), and row 0 is left as it is",
          rotation_with_rows_shifted(x, -1, /*clamp=*/false)},
         {"row t is turned by the angles of row t + 1: row t takes angles(t, i), and row 0 is left as it is",
          rotation_with_rows_shifted(x, +1, /*clamp=*/false)},
         // Last, as it fits every rotation of the pairs: kept lengths, other angles.
         {"every pair keeps its length, so yours is a rotation, but by other angles than the given ones: turn pair i "
          "of row t by angles(t, i) (t * theta_i, theta_i = 10000^(-2i/H)), not by angles of your own",
          keeps_every_pair_length(x, yours) ? yours : Tensor()}});
    note_your_dot_products(checker, v, rotation_right);
    if (!rotation_right) return;

    checker.next_hint =
        "apply_rope is right; now exercise_scores: rotate the vector to every position of a sequence of 114, and dot "
        "the rows 3 and 3, 3 and 103, 13 and 13, 13 and 113";
    const RopeScores scores = exercise_scores(v);
    const Tensor rotated = library_rotation(repeated_rows(v, seq_len), RopePairing::interleaved);  // (T, H)
    // Scores are of the size of |v|^2 (the score at distance 0 is exactly that).
    const double tolerance = 1e-4 * row_dot(rotated, 3, 3);
    const Tensor unrotated_rows = repeated_rows(v, seq_len);  // (T, H)
    const double unrotated = row_dot(unrotated_rows, 0, 0);
    struct Entry {
        const char* name;
        int64_t query, key;
        double yours;
    };
    const Entry entries[] = {{"query3_key3", 3, 3, scores.query3_key3},
                             {"query3_key103", 3, 103, scores.query3_key103},
                             {"query13_key13", 13, 13, scores.query13_key13},
                             {"query13_key113", 13, 113, scores.query13_key113}};
    for (const Entry& e : entries) {
        const double expected_score = row_dot(rotated, e.query, e.key);
        const std::string rows = "dot row " + std::to_string(e.query) + " with row " + std::to_string(e.key);
        std::vector<std::pair<std::string, double>> slips = {
            {"that is the dot product of the unrotated vectors: rotate both query and key first", unrotated},
            {"only the query is rotated: rotate the key too, then " + rows, rows_dot(rotated, e.query, unrotated_rows, e.key)},
            {"only the key is rotated: rotate the query too, then " + rows, rows_dot(unrotated_rows, e.query, rotated, e.key)}};
        // A row off by one, on either side: the hint says which rows yours matches.
        for (const auto& [dq, dk] : {std::pair<int64_t, int64_t>{0, 1}, {0, -1}, {1, 0}, {-1, 0}}) {
            const int64_t q = e.query + dq, k = e.key + dk;
            if (q < 0 || k < 0 || q >= seq_len || k >= seq_len) continue;
            slips.push_back({"a row is off by one: yours is row " + std::to_string(q) + " with row " + std::to_string(k) +
                                 "; " + rows,
                             row_dot(rotated, q, k)});
        }
        checker.compare_number(std::string(e.name) + ", query at " + std::to_string(e.query) + " and key at " +
                                   std::to_string(e.key),
                               e.yours, expected_score, tolerance, slips);
    }
    // The exercise's own question, asked of your numbers: is each pair equal?
    for (int pair = 0; pair < 2; ++pair) {
        const Entry &first = entries[pair], &shifted = entries[pair + 2];
        const std::string what = std::string("your pair ") + first.name + " and " + shifted.name +
                                 " are equal: the score depends only on the distance";
        // Both numbers are yours: neither is the expected one (each is compared with the library above).
        if (exercise::close(shifted.yours, first.yours, tolerance))
            checker.ok(what + " (yours: " + exercise::number(first.yours) + " and " + exercise::number(shifted.yours) + ")");
        else
            checker.wrong(what, std::string("your ") + first.name + " is " + exercise::number(first.yours) + " and your " +
                                    shifted.name + " is " + exercise::number(shifted.yours));
    }
    if (!checker.failed()) check_the_rows(checker, v, scores);
}

}  // namespace

// The exercise this checker judges: its name, what it builds, and the first step while untouched.
static const exercise::Exercise about{"rope_rotation", "RoPE's rotation and the course's four dot products (LLM Mastery 23, \"Exercise\")",
                                      "start with apply_rope"};
int main(int argc, char** argv) { return exercise::run(argc, argv, about, check); }
