#!/bin/sh
# The learner's program, contained: run under its time limit in a process group of its own, and when
# it ends (or is stopped at the limit) every process it started and left running is killed, so a
# fork, a child left behind or a child holding the output open never outlives the run.
#   contain.sh SECONDS PROGRAM [ARGUMENTS...]
# Exit status: the program's (124 when it ran past SECONDS, as timeout's). When processes were left
# running, one line on stderr says how many (before the caller reads the verdict).
# Leaves out a process that leaves the group on purpose (setsid): containing that needs a cgroup.
# Uses the shell and /proc alone: procps (pgrep, ps) is not on every Debian (debootstrap's minbase,
# a container's image), and a count that failed there let a child holding the output open run on.
set -u
# The processes in process group $1: /proc/PID/stat reads "PID (NAME) STATE PPID PGRP ...", and the
# name may hold spaces and ')', so the fields are read after the last ')'.
count_group() {
    wanted=$1
    n=0
    for stat in /proc/[0-9]*/stat; do
        { read -r line < "$stat"; } 2>/dev/null || continue  # ended since the list was made
        set -- ${line##*)}
        [ "${3:-}" = "$wanted" ] && n=$((n + 1))
    done
    echo "$n"
}
seconds=$1
shift
# timeout puts itself and the program in a new process group (its own id) and stops the whole group
# at the limit; the rest of the group is stopped here when the program ends first.
timeout "$seconds" "$@" &
group=$!
trap 'kill -s KILL -- -$group 2>/dev/null; exit 130' INT
trap 'kill -s KILL -- -$group 2>/dev/null; exit 143' TERM
wait $group
status=$?
left=$(count_group "$group")
if [ "$left" -gt 0 ]; then
    kill -s KILL -- -"$group" 2>/dev/null
    echo "$(basename "$1"): your code left $left process(es) running after the program ended (a fork, perhaps); they were stopped" >&2
fi
exit $status
