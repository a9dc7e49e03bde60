# Sourced by experiment/run_one.sh and experiment/run_extension.sh: one train_position run into a result file,
# whole or not at all.
#   run_atomically RESULT LOCK_DIR COUNT_GLOB SETTINGS PROGRAM [ARGUMENTS...]
# runs PROGRAM ARGUMENTS on one thread into a temporary file of its own beside RESULT (mktemp:
# RESULT.tmp.XXXXXX, created new, never an existing file or a link), checks that the program
# succeeded and wrote exactly one line, a result line for its task, adds the line SETTINGS
# ("settings: train_position TASK SCHEME SEED RUN_FLAGS", what the collectors check before they use
# a result), and renames it to RESULT. Then, under LOCK_DIR/.lock, it counts the finished results
# into done_count (so two runs finishing together get different numbers): LOCK_DIR/.done's number
# plus one when make experiment left that file (the runs of its list already done), else the files
# matching COUNT_GLOB; and it
# leaves the start time in start. The temporary file is locked (flock, descriptor 7) while the run lives,
# so that a prune leaves it alone, and is made readable as any new file (mktemp makes it private). The program runs in the background so that a signal to the script
# (make passes SIGTERM on to its jobs) is acted on at once, not when the training ends: stop it, wait
# for it, and leave nothing behind. A program that wrote nothing or half a line (a full disk, a
# file-size limit) is a failed run, never a result.
# Leaves out naming the run and printing its line (each caller's own format).
run_atomically() {
    result=$1 lock_dir=$2 count_glob=$3 settings=$4 run_program=$5
    shift 5
    task=$1
    child= tmp=
    # The traps come first: a signal while mktemp runs (make or scancel stopping a run that has just
    # started) is acted on once tmp is named, and the file is removed. The removal ignores the
    # signals: a signal sent to every process of the run (scancel, a terminal's ^C) as it exits for
    # another reason would otherwise stop rm too.
    trap 'trap "" INT TERM HUP; [ -z "$tmp" ] || rm -f "$tmp"' EXIT
    trap 'stop_run 130' INT
    trap 'stop_run 143' TERM
    # mktemp itself ignores them (a subshell's ignored signals pass to the programs it runs): stopped
    # between creating the file and printing its name, it would leave a file no one knows of.
    tmp=$(trap '' INT TERM HUP; mktemp "$result.tmp.XXXXXX") || { echo "cannot create a temporary file beside $result" >&2; exit 1; }
    # After the traps, so that a signal meanwhile still removes the file. mktemp makes it private
    # (0600); a result is read as any new file would be (0644 under umask 022: other users of a
    # shared results folder, make experiment-jobs' hosts, read it).
    chmod "$(printf '%o' $(( 0666 & ~$(umask) )))" "$tmp" || exit 1
    # Held for as long as the run (and the program, which inherits it) lives: a prune started meanwhile
    # (make experiment-jobs again while its jobs run elsewhere) sees a live run and leaves its files alone.
    exec 7>> "$tmp" && flock -x 7 || { echo "cannot lock $tmp" >&2; exit 1; }
    start=$(date +%s)
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$run_program" "$@" > "$tmp" &
    child=$!
    wait "$child" || exit 1
    child=
    if [ "$(wc -l < "$tmp")" != 1 ] || ! head -n 1 "$tmp" | grep -q "^$task "; then
        echo "$(basename "$run_program") $*: wrote no whole result line (a full disk or a file-size limit?); no result kept" >&2
        exit 1
    fi
    printf '%s\n' "$settings" >> "$tmp" || { echo "cannot write the settings line to $tmp" >&2; exit 1; }
    done_count=$(flock "$lock_dir/.lock" sh -c 'mv "$1" "$2" || exit 1
        if [ -f "$4" ]; then n=$(( $(cat "$4") + 1 )); echo "$n" > "$4"; echo "$n"; else ls $3 | wc -l; fi' \
        sh "$tmp" "$result" "$count_glob" "$lock_dir/.done") || exit 1
}

stop_run() {
    [ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child"
    exit "$1"
}
