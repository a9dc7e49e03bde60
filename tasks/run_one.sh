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
. "$(dirname "$0")/atomic_run.sh"
run_atomically "$result" "$(dirname "$result")" "$(dirname "$result")/*.txt" "$program" "$task" "$scheme" "$seed" --quiet "$@"
figures=$(sed -n 's/.*length [0-9 /]*: \([0-9. /]*\);.*/\1/p' "$result")
printf '[%2d/%d] %s %s seed %s: %s (%d s)\n' "$done_count" "$total" "$task" "$scheme" "$seed" "$figures" "$(( $(date +%s) - start ))"
