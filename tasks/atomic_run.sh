# Sourced by tasks/run_one.sh and tasks/run_extension.sh: one train_position run into a result file,
# whole or not at all.
#   run_atomically RESULT LOCK_DIR COUNT_GLOB PROGRAM [ARGUMENTS...]
# runs PROGRAM ARGUMENTS on one thread into RESULT.tmp.PID and renames it to RESULT; then, under
# LOCK_DIR/.lock, counts the finished results matching COUNT_GLOB into done_count (so two runs
# finishing together get different numbers) and leaves the start time in start. The program runs in
# the background so that a signal to the script (make passes SIGTERM on to its jobs) is acted on at
# once, not when the training ends: stop it, wait for it, and leave nothing behind.
# Leaves out naming the run and printing its line (each caller's own format).
run_atomically() {
    result=$1 lock_dir=$2 count_glob=$3 run_program=$4
    shift 4
    tmp="$result.tmp.$$"
    child=
    trap 'rm -f "$tmp"' EXIT
    trap 'stop_run 130' INT
    trap 'stop_run 143' TERM
    start=$(date +%s)
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$run_program" "$@" > "$tmp" &
    child=$!
    wait "$child" || exit 1
    child=
    done_count=$(flock "$lock_dir/.lock" sh -c 'mv "$1" "$2" && ls $3 | wc -l' sh "$tmp" "$result" "$count_glob")
}

stop_run() {
    [ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child"
    exit "$1"
}
