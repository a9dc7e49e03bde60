#!/bin/sh
# make experiment SCHEDULER=slurm's runs step: every line of JOBS_FILE (make experiment-jobs' list)
# becomes one task of a Slurm job array, one CPU each, and this waits for the array to end.
#   experiment/slurm_submit.sh JOBS_FILE LOG_DIR [SBATCH_FLAGS...]   (make's SLURM_FLAGS, e.g. --partition=x)
# Each task's output (the run's line, or its error) goes to LOG_DIR/ARRAY_INDEX.out and is printed
# here, in the list's order, once the array has ended. An array holds at most MaxArraySize tasks
# (scontrol show config; 1001 unless the cluster says otherwise), so a longer list goes as several
# arrays, each told its first line. SIGINT or SIGTERM (Ctrl-C, make interrupted) cancels what was
# submitted; SIGHUP (the terminal closed) leaves it queued, for make experiment-collect afterwards.
# Leaves out retrying a failed task: make experiment again submits only the runs still missing.
set -u
jobs_file=$1 log_dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
total=$(wc -l < "$jobs_file")
if [ "$total" = 0 ]; then
    echo "slurm: every run has its result; nothing to submit"
    exit 0
fi
command -v sbatch >/dev/null 2>&1 ||
    { echo "slurm: sbatch is not on PATH: SCHEDULER=slurm needs Slurm's commands (Debian package slurm-client) on this machine" >&2; exit 1; }
max=$(scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *\([0-9][0-9]*\).*/\1/p')
max=${max:-1001}

arrays=""   # "ID:FIRST:COUNT" for each array submitted
pids=""     # the sbatch --wait process of each
id_file=""  # where the sbatch being started writes its array's id
pid=""      # and that sbatch
# "job array 12" or "job arrays 12 13": the arrays submitted so far.
array_names() {
    set -- $arrays
    [ $# -gt 1 ] && printf 'job arrays' || printf 'job array'
    for a in "$@"; do printf ' %s' "${a%%:*}"; done
}
# sbatch runs in a session of its own, so a signal to make's process group reaches this script
# alone: an array queued just now still has its id read, and is cancelled with the others.
cancel() {
    if [ -n "$id_file" ]; then
        for i in $(seq 20); do [ -s "$id_file" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        [ -s "$id_file" ] && arrays="$arrays $(cut -d ';' -f 1 "$id_file"):0:0" pids="$pids $pid"
        rm -f "$id_file"
    fi
    for array in $arrays; do scancel "${array%%:*}" 2>/dev/null; done
    for p in $pids; do kill "$p" 2>/dev/null; done
    [ -n "$arrays" ] && echo "slurm: stopped; $(array_names) cancelled" >&2
    exit "$1"
}
trap 'cancel 130' INT
trap 'cancel 143' TERM

first=0
while [ "$first" -lt "$total" ]; do
    count=$((total - first))
    [ "$count" -le "$max" ] || count=$max
    id_file="$log_dir/submitted.$$.$first"
    setsid sbatch --wait --parsable --array=0-$((count - 1)) --cpus-per-task=1 --ntasks=1 --job-name=whereami \
        --output="$log_dir/%A_%a.out" "$@" "$here/slurm_array.sh" "$jobs_file" "$first" > "$id_file" &
    pid=$!
    # sbatch prints the array's id as soon as it is queued, then waits for its end.
    while [ ! -s "$id_file" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    id=$(cut -d ';' -f 1 "$id_file")
    [ -n "$id" ] && arrays="$arrays $id:$first:$count" pids="$pids $pid"
    rm -f "$id_file"
    id_file=""
    if [ -z "$id" ]; then
        wait "$pid"
        echo "slurm: sbatch refused the job array (its message is above); SLURM_FLAGS='$*'" >&2
        cancel 1
    fi
    echo "slurm: runs $((first + 1))-$((first + count)) of $total submitted as job array $id, one CPU a task (squeue -j $id; output in $log_dir/${id}_*.out)"
    first=$((first + count))
done

failed=0
for pid in $pids; do wait "$pid" || failed=1; done
trap - INT TERM
for array in $arrays; do
    id=${array%%:*} rest=${array#*:}
    count=${rest#*:} index=0
    while [ "$index" -lt "$count" ]; do
        cat "$log_dir/${id}_$index.out" 2>/dev/null
        index=$((index + 1))
    done
done
if [ "$failed" != 0 ]; then
    echo "slurm: a task of $(array_names) failed (its output is above, and in $log_dir); make experiment again redoes the missing runs" >&2
    exit 1
fi
echo "slurm: $(array_names) ended; all $total runs done"
