#!/bin/sh
# make experiment-jobs' filter: turns a make -n listing, in which each run's recipe follows a line
# ": MARK", into one self-contained shell command per run:  cd DIR && LINE1 && LINE2 ...
#   experiment/job_list.sh DIR MARK < LISTING
# A recipe's lines are joined with && (make too stops at the first that fails), and a backslash-newline
# inside one is joined as the shell would outside quotes. A marker with nothing after it is a run make
# would not redo. Anything before the first marker (something make would build first) is an error.
# Leaves out recipes whose lines make runs with `-` (errors ignored): && would stop at them.
set -u
export LC_ALL=C  # awk and sort read numbers with '.' whatever the user's locale
dir=$1 mark=$2
awk -v dir="$dir" -v mark=": $mark" '
    function flush() { if (command != "") print "cd " dir " && " command; command = "" }
    pending != "" { $0 = pending $0; pending = "" }
    /\\$/ { pending = substr($0, 1, length($0) - 1); next }
    $0 == mark { flush(); marks++; next }
    marks == 0 { print "job_list: make would first run: " $0 > "/dev/stderr"; failed = 1; exit }
    { command = command (command == "" ? "" : " && ") $0 }
    END { if (failed) exit 1; flush() }
'
