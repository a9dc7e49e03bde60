#!/bin/bash
# make test-experiment: a short make experiment (tiny model, 300 steps: a few seconds) must never lose
# or fake a result. It is run whole with one job and with two (same table: runs do not disturb each
# other); interrupted with SIGINT, SIGTERM to its process group, SIGTERM to make alone and SIGKILL,
# each time leaving no temporary file and no partial result, then resumed, doing only the missing
# runs and giving the same table; its result files truncated, filled with garbage, doubled, emptied
# or replaced by another run's line, each detected and redone. Bad settings (SEEDS, JOBS, RUN_FLAGS;
# make test's SANITIZE and TAGS) and a NaN loss in every run stop make with a clear line and no
# result. Exit 0 when all of this holds.
#   tests/experiment_resume.sh [SANITIZE]   (the programs of that build are used)
# Leaves out the chapter's full-size runs (make experiment) and comparing figures with the chapter.
set -u
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL  # a make of our own, not a job of the make that started this script
sanitize=${1:-}
root=$(mktemp -d "${TMPDIR:-/tmp}/whereami_experiment.XXXXXX")
trap 'rm -rf "$root"' EXIT
flags="--steps 300 --eval-seqs 8 --dim 16 --mlp 32 --batch 8"
failed=0
ok() { echo "  [ok] $*"; }
fail() { echo "  [FAILED] $*"; failed=1; }

# experiment RESULTS [make arguments...]: a make experiment of the short variant, quiet.
experiment() {
    local results=$1
    shift
    make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$results" RUN_FLAGS="$flags" "$@"
}
results_in() { ls "$1"/runs/*.txt 2>/dev/null | wc -l; }
leftovers_in() { find "$1" -name '*.tmp*' 2>/dev/null | wc -l; }
# Result files that are not one valid line for their run, as --prune sees them (on a copy: it removes them).
invalid_in() {
    rm -rf "$root/check" && cp -r "$1/runs" "$root/check"
    "build${sanitize:+/$sanitize}/collect_results" --prune "$root/check" 0 1 | grep -c 'not a valid result'
}
done_lines() { grep -cE '^\[ ?[0-9]+/28\]' "$1"; }
# Processes that name the folder in their arguments (make, run_one.sh) or hold a file open in it
# (train_position writing its temporary result).
running_in() {
    { pgrep -f -- "$1"; for fd in /proc/[0-9]*/fd/*; do
        case $(readlink "$fd" 2>/dev/null) in "$1"/*) pid=${fd#/proc/}; echo "${pid%%/*}" ;; esac; done; } | sort -u | wc -l
}

echo "experiment_resume: bad settings stop make with one line and nothing run"
for setting in "SEEDS=x" "SEEDS=-1" "SEEDS=" "SEEDS=0 0" "JOBS=0" "JOBS=x" "JOBS=2 3"; do
    output=$(experiment "$root/bad" "$setting" 2>&1)
    status=$?
    lines=$(printf '%s\n' "$output" | wc -l)
    if [ $status -ne 0 ] && [ "$lines" = 1 ] && printf '%s' "$output" | grep -qE '\*\*\* (SEEDS|JOBS)' && [ ! -e "$root/bad" ]; then
        ok "$setting: $output"
    else
        fail "$setting: exit status $status, $lines lines, results folder $([ -e "$root/bad" ] && echo made || echo absent): $output"
    fi
done

# The same for make test: a misspelt sanitizer stops make at once; a tag that matches no test fails
# instead of passing with nothing run (checked when the test binary is already built, as in CI).
output=$(make --no-print-directory test SANITIZE=adress 2>&1)
status=$?
[ $status -ne 0 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && ok "make test SANITIZE=adress: $output" ||
    fail "make test SANITIZE=adress: exit status $status: $output"
test_binary="build${sanitize:+/$sanitize}/run_tests"
if make --no-print-directory -q SANITIZE="$sanitize" "$test_binary" 2>/dev/null; then
    output=$(make --no-print-directory SANITIZE="$sanitize" test TAGS='[cil]' 2>&1)
    status=$?
    [ $status -ne 0 ] && printf '%s' "$output" | grep -q "No test cases matched '\[cil\]'" &&
        ok "make test TAGS='[cil]': exit status $status, $(printf '%s\n' "$output" | grep 'No test cases matched')" ||
        fail "make test TAGS='[cil]': exit status $status"
else
    echo "  (make test TAGS='[cil]' not tried: $test_binary is not built)"
fi

# A bad RUN_FLAGS, and a fault in every run (a loss driven to NaN): each run refuses or stops with its
# line, and no result, temporary file or table is left.
for case in "--steps x|train_position: --steps needs an integer, got 'x'" \
            "--lr 1e30|train_position: training stopped at step"; do
    run_flags=${case%%|*} expected=${case#*|}
    output=$(make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$root/fault" RUN_FLAGS="$flags $run_flags" 2>&1)
    status=$?
    if [ $status -ne 0 ] && printf '%s' "$output" | grep -qF -- "$expected" && [ "$(results_in "$root/fault")" = 0 ] &&
       [ "$(leftovers_in "$root/fault")" = 0 ] && [ ! -e "$root/fault/table.txt" ]; then
        ok "RUN_FLAGS='$run_flags': stopped, no result: $(printf '%s\n' "$output" | grep -F -- "$expected" | head -n 1)"
    else
        fail "RUN_FLAGS='$run_flags': exit status $status, $(results_in "$root/fault") results, $(leftovers_in "$root/fault") temporary files"
        printf '%s\n' "$output" | tail -n 5 | sed 's/^/    | /'
    fi
    rm -rf "$root/fault"
done

echo "experiment_resume: the whole short experiment, one run at a time, then two at a time"
start=$(date +%s)
experiment "$root/reference" JOBS=1 > "$root/reference.log" 2>&1 || { fail "the reference run failed"; tail "$root/reference.log"; exit 1; }
seconds=$(( $(date +%s) - start ))
[ "$(done_lines "$root/reference.log")" = 28 ] && ok "28 runs with JOBS=1 in $seconds s" || fail "the reference did not do 28 runs"
experiment "$root/two" JOBS=2 > "$root/two.log" 2>&1 || fail "the JOBS=2 run failed"
if cmp -s "$root/reference/table.txt" "$root/two/table.txt" && cmp -s "$root/reference/summary.md" "$root/two/summary.md"; then
    ok "JOBS=2 gives the same table.txt and summary.md, byte for byte"
else
    fail "JOBS=2 gives another table:"; diff "$root/reference/table.txt" "$root/two/table.txt" | head
fi

# interrupt NAME SIGNAL WHOM: start the experiment in its own process group, wait until it has a few
# results, send SIGNAL to the group (WHOM=group) or to make alone (WHOM=make), then check what is left
# and run it again.
interrupt() {
    local name=$1 signal=$2 whom=$3 results="$root/$1"
    set -m  # the experiment gets its own process group, as a command typed in a terminal does
    make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$results" RUN_FLAGS="$flags" > "$root/$name.log" 2>&1 &
    local pid=$!  # make's own process: a simple command in the background is not wrapped in a subshell
    set +m
    while [ "$(results_in "$results")" -lt 4 ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
    if [ "$whom" = group ]; then kill -s "$signal" -- -$pid; else kill -s "$signal" $pid; fi
    wait $pid 2>/dev/null  # (bash's own note on the killed job is not ours to print)
    local status=$? kept left invalid running
    sleep 0.2  # anything a signal left running shows up below
    kept=$(results_in "$results") left=$(leftovers_in "$results") invalid=$(invalid_in "$results")
    running=$(running_in "$results")
    local state="exit status $status, $kept of 28 results, $invalid invalid, $left temporary files, $running processes running"
    if [ "$signal" = KILL ]; then
        # Nothing can clean up after SIGKILL: the next make experiment removes what it left.
        [ "$running" = 0 ] && [ "$invalid" = 0 ] && [ "$kept" -lt 28 ] &&
            ok "$name: SIGKILL to the $whom: $kept whole results kept, $left temporary files left for the rerun" ||
            fail "$name: SIGKILL to the $whom: $state"
    elif [ $status -ne 0 ] && [ "$kept" -lt 28 ] && [ "$left" = 0 ] && [ "$running" = 0 ] && [ "$invalid" = 0 ]; then
        ok "$name: SIG$signal to the $whom stopped it (exit status $status) with $kept of 28 whole results, no temporary file, nothing running"
    else
        fail "$name: SIG$signal to the $whom: $state"
    fi
    experiment "$results" > "$root/$name.rerun.log" 2>&1 || fail "$name: the rerun failed"
    local redone removed
    redone=$(done_lines "$root/$name.rerun.log")
    removed=$(grep -c 'left by a run that was killed' "$root/$name.rerun.log")
    if [ "$redone" = $((28 - kept)) ] && [ "$removed" = "$left" ] && cmp -s "$root/reference/table.txt" "$results/table.txt" &&
       [ "$(leftovers_in "$results")" = 0 ]; then
        ok "$name: the rerun removed $removed temporary files, did only the $redone missing runs and gives the reference table, byte for byte"
    else
        fail "$name: the rerun did $redone runs (expected $((28 - kept))), table $(cmp -s "$root/reference/table.txt" "$results/table.txt" && echo same || echo DIFFERENT)"
    fi
}
echo "experiment_resume: interrupted, then run again"
interrupt sigint INT group
interrupt sigterm TERM group
interrupt sigterm_make TERM make
interrupt sigkill KILL group

echo "experiment_resume: corrupted result files are detected and redone, never collected"
runs="$root/sigint/runs"
truncate -s 40 "$runs/lag_none_seed0.txt"                        # cut off mid-line
head -c 300 /dev/urandom > "$runs/lag_rope_seed1.txt"             # garbage
line=$(cat "$runs/seen_learned_seed0.txt")
printf '%s\n%s\n' "$line" "$line" > "$runs/seen_learned_seed0.txt"  # the line twice
: > "$runs/seen_alibi-0.5_seed1.txt"                              # empty
cp "$runs/lag_sinusoid_seed0.txt" "$runs/lag_sinusoid_seed1.txt"  # another run's valid line
sed -i 's/\.\([0-9]\)\([0-9]\)[0-9]$/.\1\2/' "$runs/seen_rope_seed0.txt"  # the last digit cut off
echo "lag  none partial" > "$runs/lag_learned_seed0.txt.tmp.99999"  # left by a killed run
experiment "$root/sigint" > "$root/corrupt.log" 2>&1 || fail "the run after the corruption failed"
noticed=$(grep -c 'is not a valid result line; it will be run again' "$root/corrupt.log")
redone=$(done_lines "$root/corrupt.log")
if [ "$noticed" = 6 ] && [ "$redone" = 6 ] && grep -q 'left by a run that was killed' "$root/corrupt.log" &&
   cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" && [ "$(leftovers_in "$root/sigint")" = 0 ]; then
    ok "6 corrupted files named and redone, the stale temporary file removed, the same table byte for byte"
else
    fail "after the corruption: $noticed named, $redone redone (expected 6 and 6), table $(cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" && echo same || echo DIFFERENT)"
    sed 's/^/    | /' "$root/corrupt.log" | head -20
fi

[ $failed = 0 ] && echo "experiment_resume: passed (short variant: RUN_FLAGS='$flags')" || echo "experiment_resume: FAILED"
exit $failed
