#!/bin/sh
# make test without TAGS: the test program in two parts at once, one per core of a 2-core machine,
# instead of one case after another (most cases use one core; the lessons and the make tests start
# programs and wait for them). The first part is the cases of the test files named (by the tags
# Catch2 gives each case for its file, -#: [#test_lessons]); the second is every other case, so a new
# test file runs in the second part without being named here. Each part's report is kept in a file
# and printed when both have ended, the first part's first; then one line for the whole run,
# "tests: N passed, M failed", as the test program itself ends (not when a part ended without its
# count: a crash, as the program alone would not print it either).
#   tests/run_parts.sh PROGRAM NO_TESTS_FLAG EXCLUDED LOG_PREFIX FILE...
#     NO_TESTS_FLAG  what makes a part that matches no case fail ("--warn NoTests", or "" for Catch2 v3)
#     EXCLUDED       tags each part leaves out, as a Catch2 expression ("~[slow]~[roundtrip]"), or ""
#     LOG_PREFIX     the reports go to LOG_PREFIX1.log and LOG_PREFIX2.log
# Exit status 0 when both parts ran every case and none failed; 1 otherwise.
# Leaves out choosing the cases: make test TAGS='...' runs the program once, as it always did.
set -u
program=$1 no_tests=$2 excluded=$3 prefix=$4
shift 4
first="" second=""
for file in "$@"; do
    first="$first${first:+,}[#$file]$excluded"
    second="$second~[#$file]"
done
second="$second$excluded"
[ -n "$first" ] || { echo "run_parts.sh: no test file names the first part" >&2; exit 1; }

echo "tests: $program in two parts at once, each reported when both have ended: the cases of $*, and every other case"
start=$(date +%s)
# shellcheck disable=SC2086 # NO_TESTS_FLAG is a flag and its value, or nothing
{ "$program" $no_tests -# "$first" > "${prefix}1.log" 2>&1; status=$?; echo $(( $(date +%s) - start )) > "${prefix}1.seconds"; exit $status; } &
first_pid=$!
# shellcheck disable=SC2086
"$program" $no_tests -# "$second" > "${prefix}2.log" 2>&1
status_2=$?
echo $(( $(date +%s) - start )) > "${prefix}2.seconds"
wait "$first_pid"
status_1=$?

passed=0 failed=0 status=0 counted=yes
for part in 1 2; do
    log="${prefix}$part.log"
    if [ "$part" = 1 ]; then part_status=$status_1; else part_status=$status_2; fi
    grep -v '^tests: [0-9]* passed, [0-9]* failed$' "$log"
    count=$(grep '^tests: [0-9]* passed, [0-9]* failed$' "$log" | tail -n 1)
    if [ -z "$count" ]; then
        echo "tests: part $part of 2 ended (exit status $part_status) without counting its cases; its report is $log"
        status=1 counted=no
        continue
    fi
    part_passed=$(echo "$count" | sed 's/^tests: \([0-9]*\) passed, \([0-9]*\) failed$/\1/')
    part_failed=$(echo "$count" | sed 's/^tests: \([0-9]*\) passed, \([0-9]*\) failed$/\2/')
    echo "part $part of 2: $part_passed passed, $part_failed failed (exit status $part_status, $(cat "${prefix}$part.seconds") s)"
    passed=$((passed + part_passed)) failed=$((failed + part_failed))
    [ "$part_status" = 0 ] || status=1
done
[ "$counted" = no ] || echo "tests: $passed passed, $failed failed"
exit $status
