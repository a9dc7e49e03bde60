#!/bin/sh
# make exercises: the progress board. Builds and checks every exercise in order, one line each, then
# "k of N solved" and the one to do next.
#   board.sh MAKE CONTAIN BUILD_DIR NAME...   (CONTAIN: build/contain, programs/contain.cpp, and its
#                                              flags, one word each: exercises.mk's EXERCISE_CONTAIN_COMMAND)
# Exit status: 0 when every exercise is solved or not solved yet; 1 when one has a wrong answer or
# does not compile (its line gives the checker's reason, or the compiler's first error), runs past
# the time limit (EXERCISE_SECONDS, 60) or stops the program.
# Leaves out the full reports: make exercise EXERCISE=NAME prints one.
set -u
make_command=$1 contain=$2 build=$3
shift 3
total=$# solved=0 bad=0 next="" next_bad=""
# In contain's subreaper mode the build folder stays writable to the learner's code, which could put a
# program of its own where a checker's is: each checker, once built, is then linked again before it
# runs (a second make, told its learner's object is new), as make exercise does (exercises.mk's
# exercise_relink).
relink=false
$contain --mode 2>/dev/null | grep -q '^subreaper' && relink=true
echo "exercises: building and checking $total exercises (lessons/README.md ties each to its lesson)"
for name in "$@"; do
    log=$(mktemp)
    if ! { $make_command --no-print-directory -s "$build/$name" &&
           { ! $relink || $make_command --no-print-directory -s -W "$build/$name.o" "$build/$name"; }; } >"$log" 2>&1; then
        first_error=$(grep -m 1 -E "error:|Error " "$log" || tail -n 1 "$log")
        echo "  [does not compile] $name: $first_error"
        bad=$((bad + 1))
        [ -z "$next_bad" ] && next_bad=$name
        rm -f "$log"
        continue
    fi
    rm -f "$log"
    verdict_file=$(mktemp)
    output=$(ulimit -v 4194304; $contain --verdict "$verdict_file" "${EXERCISE_SECONDS:-60}" "$build/$name" --brief 2>&1)
    status=$?
    # The verdict is the line the checker wrote to contain's verdict descriptor, never a line of the
    # output, which the learner's code can print too.
    verdict=$(grep -E "^$name: (solved|not solved yet|wrong answer)" "$verdict_file" | tail -n 1)
    rm -f "$verdict_file"
    left=$(printf '%s\n' "$output" | sed -n 's/^.*: your code \(left [0-9]* process(es) running\).*$/\1/p' | tail -n 1)
    # A status that is no verdict (0, 10, 1): the time limit, or the learner's code stopped the program.
    case $status in
        0 | 1 | 10) [ -n "$verdict" ] ||
                        verdict="$(sh "$(dirname "$0")/checker_status.sh" "$name" "ended-$status" "${EXERCISE_SECONDS:-60}")" ;;
        *) verdict="$(printf '%s\n' "$output" | sh "$(dirname "$0")/checker_status.sh" "$name" "$status" "${EXERCISE_SECONDS:-60}" /dev/stdin)" ;;
    esac
    note=${left:+" (your code $left, stopped when it ended)"}
    case "$verdict" in
        "$name: solved"*) echo "  [solved]  $name$note"; solved=$((solved + 1)) ;;
        "$name: not solved yet"*) echo "  [not yet] $name: ${verdict#"$name: not solved yet: "}$note"; [ -z "$next" ] && next=$name ;;
        *) echo "  [WRONG]   $verdict$note"; bad=$((bad + 1)); [ -z "$next_bad" ] && next_bad=$name ;;
    esac
done
[ -n "$next_bad" ] && next=$next_bad
if [ -n "$next" ]; then
    echo "exercises: $solved of $total solved; next: $next (make exercise EXERCISE=$next for its full report)"
else
    echo "exercises: $solved of $total solved: every one"
fi
[ $bad = 0 ]
