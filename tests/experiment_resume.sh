#!/bin/bash
# make test-experiment: a short make experiment (tiny model, 300 steps: a few seconds) must never lose
# or fake a result. It is run whole with one job and with two (same table: runs do not disturb each
# other); interrupted with SIGINT, SIGTERM to its process group, SIGTERM to make alone and SIGKILL,
# each time leaving no temporary file and no partial result, then resumed, doing only the missing
# runs and giving the same table; its result files truncated, filled with garbage, doubled, emptied
# or replaced by another run's line, given an impossible accuracy, other settings, no weights or
# garbage weights, each detected and redone; made again with other RUN_FLAGS, every run redone; a
# second make on a folder in use refused in one line; the collector refusing a missing, cut or impossible chapter table and two
# outputs at one path. Bad settings (SEEDS, JOBS, RUN_FLAGS;
# make test's SANITIZE and TAGS) and a NaN loss in every run stop make with a clear line and no
# result. Exit 0 when all of this holds.
#   tests/experiment_resume.sh [SANITIZE]   (the programs of that build are used)
# Leaves out the chapter's full-size runs (make experiment) and comparing figures with the chapter.
sanitize=${1:-}
. "$(dirname "$0")/script_setup.sh" experiment
flags="--steps 300 --eval-seqs 8 --dim 16 --mlp 32 --batch 8"

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
    "build${sanitize:+/$sanitize}/collect_results" --prune --run-flags "$flags" "$root/check" 0 1 |
        grep -cE 'not a valid result|has no weights|has weights beside it|was made with'
}
done_lines() { grep -cE '^\[ ?[0-9]+/28\]' "$1"; }
# Processes that name the folder in their arguments (make, run_one.sh) or hold a file open in it
# (train_position writing its temporary result), from /proc alone (procps is not on every Debian).
running_in() {
    { for cmdline in /proc/[0-9]*/cmdline; do
          pid=${cmdline#/proc/} pid=${pid%%/*}
          [ "$pid" = $BASHPID ] && continue  # this scan's own shell
          case $(tr '\0' ' ' < "$cmdline" 2>/dev/null) in *"$1"*) echo "$pid" ;; esac; done
      for fd in /proc/[0-9]*/fd/*; do
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

# A bad RUN_FLAGS (a value that is no number, a flag the short variant already gives), and a fault
# in every run (a loss driven to NaN): each run refuses or stops with its
# line, and no result, temporary file or table is left.
for case in "--layers x|train_position: --layers needs an integer, got 'x'" \
            "--steps 5|train_position: --steps is given twice" \
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
    # With SIGINT's default action, as in a terminal: a test started in the background (make test-experiment &,
    # nohup) inherits SIGINT and SIGQUIT ignored, which no shell can undo, and the experiment would run on.
    env --default-signal=INT,QUIT,HUP make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$results" RUN_FLAGS="$flags" > "$root/$name.log" 2>&1 &
    local pid=$!  # make's own process (env runs it in its place): a simple command in the background is not wrapped in a subshell
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

# A signal sent to every process of a run (scancel, a terminal's ^C) can reach it while mktemp has
# made the temporary file but not yet printed its name, or while rm removes it on the way out of a
# failed run. Stand-ins for mktemp and rm (first on PATH) send SIGTERM to the run's process group at
# exactly those moments; the run must still leave no temporary file.
echo "experiment_resume: a signal to every process of a run as it makes or removes its temporary file"
mkdir -p "$root/signal_bin" "$root/signal_runs"
real_mktemp=$(command -v mktemp) real_rm=$(command -v rm)
printf '#!/bin/sh\nname=$(%s "$@") || exit 1\nkill -TERM 0\nprintf "%%s\\n" "$name"\n' "$real_mktemp" > "$root/signal_bin/mktemp"
printf '#!/bin/sh\nkill -TERM 0\nexec %s "$@"\n' "$real_rm" > "$root/signal_bin/rm"
chmod +x "$root/signal_bin/mktemp" "$root/signal_bin/rm"
program="build${sanitize:+/$sanitize}/train_position"
for moment in "mktemp|lag_none_seed0.txt" "rm|lag_nope_seed0.txt"; do
    tool=${moment%%|*} result="$root/signal_runs/${moment#*|}"
    mkdir -p "$root/signal_only" && ln -sf "$root/signal_bin/$tool" "$root/signal_only/$tool"
    set -m  # its own process group, so that kill 0 reaches the run and nothing else
    PATH="$root/signal_only:$PATH" sh experiment/run_one.sh "$result" 1 "$program" $flags > /dev/null 2>&1 &
    pid=$!
    set +m
    wait $pid 2>/dev/null
    status=$?
    "$real_rm" -rf "$root/signal_only"
    left=$(leftovers_in "$root/signal_runs")
    if [ $status != 0 ] && [ "$left" = 0 ] && [ ! -e "$result" ]; then
        ok "SIGTERM to the run's group while $tool runs: exit status $status, no temporary file, no result"
    else
        fail "SIGTERM to the run's group while $tool runs: exit status $status, $left temporary files$([ -e "$result" ] && echo ", a result")"
    fi
    "$real_rm" -f "$root"/signal_runs/*
done

echo "experiment_resume: corrupted result files are detected and redone, never collected"
runs="$root/sigint/runs"
truncate -s 40 "$runs/lag_none_seed0.txt"                        # cut off mid-line
head -c 300 /dev/urandom > "$runs/lag_rope_seed1.txt"             # garbage
line=$(cat "$runs/seen_learned_seed0.txt")
printf '%s\n%s\n' "$line" "$line" > "$runs/seen_learned_seed0.txt"  # the line twice
: > "$runs/seen_alibi-0.5_seed1.txt"                              # empty
cp "$runs/lag_sinusoid_seed0.txt" "$runs/lag_sinusoid_seed1.txt"  # another run's valid line
sed -i 's/\.\([0-9]\)\([0-9]\)[0-9]$/.\1\2/' "$runs/seen_rope_seed0.txt"  # the last digit cut off
sed -i '1s/length 32 \/ 64 \/ 128: [0-9.]*/length 32 \/ 64 \/ 128: 1.500/' "$runs/lag_alibi-0.5_seed0.txt"  # an accuracy of 1.5
sed -i '2s/$/ --steps 5/' "$runs/seen_none_seed1.txt"            # made with other flags
rm "$runs/lag_rope_seed0.safetensors"                           # its weights gone
echo garbage > "$runs/seen_sinusoid_seed1.safetensors"           # its weights garbage
echo "lag  none partial" > "$runs/lag_learned_seed0.txt.tmp.99999"  # left by a killed run
experiment "$root/sigint" > "$root/corrupt.log" 2>&1 || fail "the run after the corruption failed"
noticed=$(grep -cE 'is not a valid result for its run|was made with RUN_FLAGS|has no weights beside it|has weights beside it' "$root/corrupt.log")
redone=$(done_lines "$root/corrupt.log")
if [ "$noticed" = 10 ] && [ "$redone" = 10 ] && grep -q 'left by a run that was killed' "$root/corrupt.log" &&
   cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" && [ "$(leftovers_in "$root/sigint")" = 0 ]; then
    ok "10 corrupted, impossible, differently-set, weightless or garbage-weighted files named and redone, the stale temporary file removed, the same table byte for byte"
else
    fail "after the corruption: $noticed named, $redone redone (expected 10 and 10), table $(cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" && echo same || echo DIFFERENT)"
    sed 's/^/    | /' "$root/corrupt.log" | head -20
fi

echo "experiment_resume: results made with other settings are redone, never reused"
make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$root/sigint" RUN_FLAGS="$flags --lr 0.002" > "$root/other.log" 2>&1 ||
    fail "the run with other RUN_FLAGS failed"
other=$(grep -c "was made with RUN_FLAGS '$flags', not '$flags --lr 0.002'" "$root/other.log")
[ "$other" = 28 ] && [ "$(done_lines "$root/other.log")" = 28 ] && ! cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" &&
    grep -q -- "--lr 0.002 (RUN_FLAGS: not the chapter's settings)" "$root/sigint/summary.md" &&
    ok "RUN_FLAGS + '--lr 0.002': all 28 named as made with other flags and redone; the summary names the flags" ||
    fail "RUN_FLAGS + '--lr 0.002': $other named, $(done_lines "$root/other.log") redone"
experiment "$root/sigint" > "$root/back.log" 2>&1 || fail "the run back at the first flags failed"
[ "$(done_lines "$root/back.log")" = 28 ] && cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" &&
    ok "back at the first RUN_FLAGS: 28 redone, the reference table byte for byte" ||
    fail "back at the first RUN_FLAGS: $(done_lines "$root/back.log") redone, table $(cmp -s "$root/reference/table.txt" "$root/sigint/table.txt" && echo same || echo DIFFERENT)"

echo "experiment_resume: a second make on a results folder in use is refused, the first is untouched"
experiment "$root/locked" > "$root/first.log" 2>&1 &
first=$!
while [ "$(results_in "$root/locked")" -lt 2 ] && kill -0 $first 2>/dev/null; do sleep 0.05; done
output=$(experiment "$root/locked" 2>&1)
status=$?
wait $first
first_status=$?
if [ $status -ne 0 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && printf '%s' "$output" | grep -q 'is using' &&
   [ $first_status = 0 ] && cmp -s "$root/reference/table.txt" "$root/locked/table.txt" && [ "$(done_lines "$root/first.log")" = 28 ]; then
    ok "refused in one line ($output); the first made all 28 runs and the reference table"
else
    fail "second make: exit status $status: $output; the first: exit status $first_status, $(done_lines "$root/first.log") runs"
fi
for case in "RESULTS=$root/with space|RESULTS must be one folder path" "RUN_FLAGS=--steps '3'|RUN_FLAGS may hold only" \
            "RUN_FLAGS=--steps 5 --save w.safetensors|RUN_FLAGS may not hold --save" "RUN_FLAGS=--quiet|RUN_FLAGS may not hold --quiet" \
            "RUN_FLAGS=--test-lens 32,64|RUN_FLAGS may not hold --test-lens" "RUN_FLAGS=--extend pi|RUN_FLAGS may not hold --extend"; do
    setting=${case%%|*} expected=${case#*|}
    output=$(make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$root/bad" "$setting" 2>&1)
    status=$?
    [ $status -ne 0 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && printf '%s' "$output" | grep -qF "$expected" &&
        [ ! -e "$root/bad" ] && [ ! -e "$root/with space" ] && ok "$setting: $output" || fail "$setting: exit status $status: $output"
done

echo "experiment_resume: the collector refuses what it cannot use"
collector="build${sanitize:+/$sanitize}/collect_results"
printf '' > "$root/empty_table.txt"
head -n 27 experiment/chapter_table.txt > "$root/short_table.txt"
{ head -n 27 experiment/chapter_table.txt; echo "seen alibi:0.0625 seed 1: garbage"; } > "$root/garbled_table.txt"
sed '1s/0\.522/1.522/' experiment/chapter_table.txt > "$root/impossible_table.txt"
for case in "$root/empty_table.txt|$root/t.txt|$root/s.md|has no line for lag none" \
            "$root/short_table.txt|$root/t.txt|$root/s.md|has 1 line for seen alibi:0.0625" \
            "$root/garbled_table.txt|$root/t.txt|$root/s.md|line 28, is not a result line" \
            "$root/impossible_table.txt|$root/t.txt|$root/s.md|an accuracy outside [0, 1]" \
            "experiment/chapter_table.txt|$root/same.txt|$root/same.txt|TABLE and SUMMARY are the same file" \
            "experiment/chapter_table.txt|experiment/chapter_table.txt|$root/s.md|TABLE and CHAPTER_TABLE are the same file"; do
    IFS='|' read -r chapter table summary expected <<EOF2
$case
EOF2
    output=$("$collector" --run-flags "$flags" "$root/reference/runs" "$chapter" "$table" "$summary" 0 1 2>&1)
    status=$?
    if [ $status -ne 0 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && printf '%s' "$output" | grep -qF "$expected" &&
       [ ! -e "$root/t.txt" ] && [ ! -e "$root/same.txt" ]; then
        ok "collect_results with $(basename "$chapter") $(basename "$table") $(basename "$summary"): $output"
    else
        fail "collect_results with $(basename "$chapter") $(basename "$table") $(basename "$summary"): exit status $status: $output"
    fi
done

[ $failed = 0 ] && echo "experiment_resume: passed (short variant: RUN_FLAGS='$flags')" || echo "experiment_resume: FAILED"
exit $failed
