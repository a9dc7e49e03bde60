#!/bin/sh
# One run of the experiment, for make: experiment/run_one.sh RESULT_FILE TOTAL TRAIN_POSITION [FLAGS...]
# RESULT_FILE is RUNS_DIR/TASK_SCHEME_seedN.txt (':' in the scheme written as '-'). The result is
# written to a temporary file and renamed (experiment/atomic_run.sh), so an interrupted run leaves nothing
# behind and a rerun of make redoes exactly the missing runs; its second line records the settings
# (the run and FLAGS, make's RUN_FLAGS), so a result made with other flags is run again, never reused.
# The trained weights go beside it, RUNS_DIR/TASK_SCHEME_seedN.safetensors, for the attention maps
# (make plots). One thread per run: make runs two at a time. The progress line ends with the time
# left, estimated from the runs this make has finished (EXPERIMENT_CLOCK="START_SECONDS DONE_BEFORE",
# set by make experiment).
set -u
result=$1 total=$2 program=$3
shift 3
name=$(basename "$result" .txt)
task=${name%%_*}
rest=${name#*_}
scheme=$(printf '%s' "${rest%_seed*}" | tr '-' ':')
seed=${rest##*_seed}
weights=$(dirname "$result")/$name.safetensors
settings="settings: train_position $task $scheme $seed${*:+ $*}"
. "$(dirname "$0")/atomic_run.sh"
run_atomically "$result" "$(dirname "$result")" "$(dirname "$result")/*.txt" "$settings" \
    "$program" "$task" "$scheme" "$seed" --quiet "$@" --save "$weights"
figures=$(sed -n '1s/.*length [0-9 /]*: \([0-9. /]*\);.*/\1/p' "$result")
left=
set -- ${EXPERIMENT_CLOCK:-}
if [ $# = 2 ] && [ "$done_count" -gt "$2" ]; then
    elapsed=$(( $(date +%s) - $1 ))
    remaining=$(( (elapsed * (total - done_count) + (done_count - $2) / 2) / (done_count - $2) ))
    if [ "$done_count" -lt "$total" ]; then
        if [ "$remaining" -lt 90 ]; then left="; about $remaining s left"; else left="; about $(( (remaining + 30) / 60 )) min left"; fi
    fi
fi
printf '[%2d/%d] %s %s seed %s: %s (%d s%s)\n' "$done_count" "$total" "$task" "$scheme" "$seed" "$figures" \
    "$(( $(date +%s) - start ))" "$left"
