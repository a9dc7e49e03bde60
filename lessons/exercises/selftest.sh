#!/bin/sh
# make exercises-selftest: the RoPE exercise's checker must tell the untouched scaffold, a right answer
# and two wrong ones apart, by verdict, exit status and the place it names.
#   selftest.sh SCAFFOLD RIGHT WRONG_ROTATION WRONG_SCORE   (the four built programs)
# Leaves out building them (exercises.mk does).
set -u
failed=0

# expect NAME PROGRAM STATUS PATTERN...: PROGRAM exits with STATUS and prints a line matching each PATTERN.
expect() {
    name=$1 program=$2 status=$3
    shift 3
    output=$("$program" 2>&1)
    actual=$?
    problems=""
    [ "$actual" = "$status" ] || problems="exit status $actual, expected $status"
    for pattern in "$@"; do
        printf '%s\n' "$output" | grep -qE -- "$pattern" || problems="$problems; no line matches '$pattern'"
    done
    if [ -z "$problems" ]; then
        echo "  [ok] $name: $(printf '%s\n' "$output" | tail -n 1)"
    else
        echo "  [FAILED] $name: ${problems#; }"
        printf '%s\n' "$output" | sed 's/^/    | /'
        failed=1
    fi
}

expect "the untouched scaffold" "$1" 0 "^rope exercise: not solved yet$" "start with apply_rope"
expect "a right answer" "$2" 0 "^rope exercise: solved"
expect "a sign slip in apply_rope" "$3" 1 "^rope exercise: wrong answer" "first at position 1, dimension 0:"
expect "a wrong last dot product" "$4" 1 "^rope exercise: wrong answer" "^  right: it agrees with rope_rotate" \
    "query 3, key 103: .* ok$" "query 13, key 113: .* WRONG \(off by" "distance 100: .* are NOT equal"
# It takes no arguments: one is refused with one line and exit status 2, not ignored.
output=$("$1" --hint 2>&1)
status=$?
if [ "$status" = 2 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && printf '%s' "$output" | grep -q "unknown argument '--hint'"; then
    echo "  [ok] an unknown argument: $output"
else
    echo "  [FAILED] an unknown argument: exit status $status, expected 2 and one line:"
    printf '%s\n' "$output" | sed 's/^/    | /'
    failed=1
fi
[ $failed = 0 ] && echo "exercises-selftest: the checker gives all four verdicts right, and refuses an argument"
exit $failed
