#!/bin/sh
# One run of the experiment, for make: tasks/run_one.sh RESULT_FILE TOTAL TRAIN_POSITION [FLAGS...]
# RESULT_FILE is RUNS_DIR/TASK_SCHEME_seedN.txt (':' in the scheme written as '-'). The result is
# written to a temporary file and renamed, so an interrupted run leaves nothing behind and a rerun
# of make redoes exactly the missing runs. One thread per run: make runs two at a time.
set -u
result=$1 total=$2 program=$3
shift 3
name=$(basename "$result" .txt)
task=${name%%_*}
rest=${name#*_}
scheme=$(printf '%s' "${rest%_seed*}" | tr '-' ':')
seed=${rest##*_seed}
tmp="$result.tmp.$$"
child=
# The training runs in the background so that a signal to this script (make passes SIGTERM on to its
# jobs) is acted on at once, not when the training ends: stop it, wait for it, and leave nothing.
stop() {
    [ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child"
    exit "$1"
}
trap 'rm -f "$tmp"' EXIT
trap 'stop 130' INT
trap 'stop 143' TERM
start=$(date +%s)
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$program" "$task" "$scheme" "$seed" --quiet "$@" > "$tmp" &
child=$!
wait "$child" || exit 1
child=
# Renaming and counting under one lock, so two runs finishing together get different numbers.
done_count=$(flock "$(dirname "$result")/.lock" sh -c 'mv "$1" "$2" && ls "$(dirname "$2")"/*.txt | wc -l' sh "$tmp" "$result")
figures=$(sed -n 's/.*length [0-9 /]*: \([0-9. /]*\);.*/\1/p' "$result")
printf '[%2d/%d] %s %s seed %s: %s (%d s)\n' "$done_count" "$total" "$task" "$scheme" "$seed" "$figures" "$(( $(date +%s) - start ))"
