#!/bin/bash
# make test-web: the web build's programs under node held to the native ones.
#   tests/web_agreement.sh NATIVE_BUILD WEB_BUILD STEPS "TASK:SCHEME ..." "LESSON ..."
#   - train_position: each TASK SCHEME, seed 0, --steps STEPS, natively (one thread) and under node,
#     as many cases at a time as there are cores.
#     The two result lines must be the same words with every accuracy within the tolerance of the
#     other's. Accuracies are counts of right answers over 256 test sequences x 32 to 128 positions,
#     printed to 3 decimals: the same model with its sums in another order (the portable sgemm's
#     blocks against OpenBLAS's, fused multiply-adds natively and none in WebAssembly, GELU's erfc
#     and exp from fast/gelu_vector.hpp against glibc's vector ones) drifts by rounding, step after
#     step, and flips close answers.
#     Up to 300 steps the tolerance is 0.01: a few hundred answers of tens of thousands, far below
#     the gap between any two schemes the chapter compares, and far above what rounding alone
#     changes in 100 steps. Past 300 steps (the chapter's 2000: make test-web-long) it is 0.05: by
#     then the drift is as large as a change of seed, and two seeds of one configuration differ by
#     up to 0.049 in the chapter's experiment natively (median 0.005); 0.05 is also the allowance
#     results/summary.md holds a run to against the chapter's table. The page's whole experiment at
#     2000 steps differs from native by at most 0.031 in a line.
#   - each LESSON (lessons/NN_name) under node: exit code 0, its "lesson NN: ok" line, and as many
#     [ok] lines as the native lesson prints (when that is built), none [FAILED].
# Prints both lines of each case and its largest difference; exit code 1 if any check failed.
# Leaves out the lessons that take minutes (make test-web names them), and the browser.
set -u
# Numbers are read and compared by awk and printf, which a locale with a decimal comma reads as 0
# (every difference would pass): the C locale's '.' throughout.
export LC_ALL=C
native=$1 web=$2 steps=$3 cases=$4 lessons=$5
node=${WEB_NODE:-node}
tolerance=0.01
[ "$steps" -le 300 ] 2>/dev/null || tolerance=0.05
failed=0
ok() { echo "  [ok] $*"; }
fail() { echo "  [FAILED] $*"; failed=1; }

# The words of a result line with each accuracy (a number with 3 decimals) replaced by #.
words() { sed 's/[0-9]\.[0-9][0-9][0-9]/#/g'; }
accuracies() { grep -o '[0-9]\.[0-9][0-9][0-9]'; }

echo "test-web: train_position, natively (one thread) and under node, --steps $steps; each accuracy within $tolerance"
# Each case's two runs, one after the other, into $tmp/N.*; as many cases at a time as there are
# cores (each run takes one), then the checks in the cases' order.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_case() {  # N TASK SCHEME
    local start middle end
    start=$(date +%s.%N)
    OMP_NUM_THREADS=1 "$native/train_position" "$2" "$3" 0 --steps "$steps" --threads 1 --quiet > "$tmp/$1.native" 2>&1
    echo $? > "$tmp/$1.native_status"
    middle=$(date +%s.%N)
    "$node" "$web/train_position.js" "$2" "$3" 0 --steps "$steps" --quiet > "$tmp/$1.web" 2>&1
    echo $? > "$tmp/$1.web_status"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$middle" -v c="$end" 'BEGIN { printf "%.1f %.1f\n", b - a, c - b }' > "$tmp/$1.seconds"
}
at_once=$(nproc 2>/dev/null || echo 2)
n=0
for c in $cases; do
    n=$((n + 1))
    run_case "$n" "${c%%:*}" "${c#*:}" &
    [ "$n" -lt "$at_once" ] || wait -n
done
wait
worst_all=0
n=0
for c in $cases; do
    n=$((n + 1))
    task=${c%%:*} scheme=${c#*:}
    native_line=$(cat "$tmp/$n.native") native_status=$(cat "$tmp/$n.native_status")
    web_line=$(cat "$tmp/$n.web") web_status=$(cat "$tmp/$n.web_status")
    read -r native_seconds web_seconds < "$tmp/$n.seconds"
    echo "  native ($native_seconds s): $native_line"
    echo "  node   ($web_seconds s): $web_line"
    if [ "$native_status" != 0 ] || [ "$web_status" != 0 ]; then
        fail "$task $scheme: exit codes $native_status (native) and $web_status (node)"
        continue
    fi
    if [ "$(printf '%s\n' "$native_line" | words)" != "$(printf '%s\n' "$web_line" | words)" ]; then
        fail "$task $scheme: the two lines differ in more than their accuracies"
        continue
    fi
    worst=$(paste <(printf '%s\n' "$native_line" | accuracies) <(printf '%s\n' "$web_line" | accuracies) |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.3f", w }')
    worst_all=$(awk -v a="$worst_all" -v b="$worst" 'BEGIN { printf "%.3f", (b > a ? b : a) }')
    if awk -v w="$worst" -v t="$tolerance" 'BEGIN { exit !(w <= t + 1e-9) }'; then
        ok "$task $scheme: largest accuracy difference $worst"
    else
        fail "$task $scheme: largest accuracy difference $worst, past $tolerance"
    fi
done
echo "test-web: largest accuracy difference over every case: $worst_all"

for lesson in $lessons; do
    number=${lesson%%_*}
    start=$(date +%s)
    output=$("$node" "$web/lessons/$lesson.js" 2>&1)
    status=$?
    seconds=$(( $(date +%s) - start ))
    oks=$(printf '%s\n' "$output" | grep -c '\[ok\]')
    faileds=$(printf '%s\n' "$output" | grep -c '\[FAILED\]')
    expected=
    [ -x "$native/lessons/$lesson" ] && expected=$("$native/lessons/$lesson" 2>&1 | grep -c '\[ok\]')
    if [ "$status" = 0 ] && [ "$faileds" = 0 ] && printf '%s\n' "$output" | grep -q "^lesson $number: ok$" &&
       { [ -z "$expected" ] || [ "$oks" = "$expected" ]; }; then
        ok "lesson $lesson under node: $oks [ok]${expected:+ (natively $expected)}, ${seconds} s"
    else
        printf '%s\n' "$output" | tail -n 20
        fail "lesson $lesson under node: exit code $status, $oks [ok]${expected:+ (natively $expected)}, $faileds [FAILED]"
    fi
done
exit $failed
