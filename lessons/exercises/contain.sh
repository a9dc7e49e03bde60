#!/bin/sh
# The learner's program, contained: run under its time limit in a process group of its own, and when
# it ends (or is stopped at the limit) every process it started and left running is killed, so a
# fork, a child left behind or a child holding the output open never outlives the run.
#   contain.sh SECONDS PROGRAM [ARGUMENTS...]
# Exit status: the program's (124 when it ran past SECONDS, as timeout's). When processes were left
# running, one line on stderr says how many (before the caller reads the verdict).
# Leaves out a process that leaves the group on purpose (setsid): containing that needs a cgroup.
set -u
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
left=$(pgrep -g "$group" | wc -l)
if [ "$left" -gt 0 ]; then
    kill -s KILL -- -"$group" 2>/dev/null
    echo "$(basename "$1"): your code left $left process(es) running after the program ended (a fork, perhaps); they were stopped" >&2
fi
exit $status
