#!/bin/sh
# One run of make experiment-extension:
#   experiment/run_extension.sh DIR MODEL MODE TRAIN_POSITION LENGTHS TOTAL [FLAGS...]
#   MODEL  TASK_SCHEME_seedN (':' in the scheme written as '-')
#   MODE   train: train the model, save its weights to DIR/trained/MODEL.safetensors and test it at
#                 LENGTHS (32,64,...) with no extension; the line goes beside them, DIR/trained/MODEL.txt. The
#                 learned table has 128 rows, so learned is tested only at the lengths up to 128.
#          pi | ntk | yarn: test the saved weights at the one length LENGTHS with that extension
#                 (s = LENGTHS / 32, train_position's default); the line goes to DIR/MODE-LENGTHS/MODEL.txt.
# FLAGS (make's RUN_FLAGS, e.g. --steps 100 --eval-seqs 16) go to every run; a test leaves out their
# --steps (it evaluates with --steps 0). The Makefile refuses FLAGS that hold the flags set here.
# The line is written to a temporary file and renamed (experiment/atomic_run.sh), so an interrupted run
# leaves nothing behind and a rerun of make redoes exactly the missing runs; its second line records
# the settings (the model and make's RUN_FLAGS), so a result made with other flags is run again. One thread per run: make runs two at a time.
# Leaves out choosing the runs (experiment/extension.mk) and reading them (programs/collect_extension.cpp).
set -u
export LC_ALL=C  # awk and sort read numbers with '.' whatever the user's locale
dir=$1 model=$2 mode=$3 program=$4 lengths=$5 total=$6
shift 6
task=${model%%_*}
rest=${model#*_}
scheme=$(printf '%s' "${rest%_seed*}" | tr '-' ':')
seed=${rest##*_seed}
weights=$dir/trained/$model.safetensors
settings="settings: train_position $task $scheme $seed${*:+ $*}"  # the model and RUN_FLAGS, as collect_extension checks
if [ "$mode" = train ]; then
    result=$dir/trained/$model.txt
    [ "$scheme" = learned ] && lengths=$(printf '%s\n' "$lengths" | tr ',' '\n' | awk '$1 <= 128' | paste -sd, -)
    set -- "$@" --save "$weights" --test-lens "$lengths"
    what="trained, tested at $lengths"
else
    # A test only evaluates the saved weights: the training's --steps (in FLAGS) gives way to --steps 0.
    n=$#
    while [ "$n" -gt 0 ]; do
        flag=$1; shift; n=$((n - 1))
        if [ "$flag" = --steps ] && [ "$n" -gt 0 ]; then shift; n=$((n - 1)); continue; fi
        set -- "$@" "$flag"
    done
    result=$dir/$mode-$lengths/$model.txt
    set -- "$@" --load "$weights" --steps 0 --test-lens "$lengths" --extend "$mode"
    what="$mode at $lengths"
fi
mkdir -p "$(dirname "$result")" "$dir/trained"
. "$(dirname "$0")/atomic_run.sh"
run_atomically "$result" "$dir" "$dir/*/*.txt" "$settings" "$program" "$task" "$scheme" "$seed" --quiet "$@"
figures=$(sed -n '1s/.*length [0-9 /]*: \([0-9. /]*\);.*/\1/p' "$result")
printf '[%3d/%d] %s %s seed %s, %s: %s (%d s)\n' "$done_count" "$total" "$task" "$scheme" "$seed" "$what" "$figures" \
    "$(( $(date +%s) - start ))"
