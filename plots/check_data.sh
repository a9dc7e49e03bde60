#!/bin/sh
# The accuracy tables the pictures are drawn from, checked before drawing: each file as the collectors
# write it (results/data/TASK.dat by collect_results, results/extension/TASK.dat by
# collect_extension): its heading line naming its writer, a "length ..." line naming the columns, then
# one row per test length: a whole length, and as many accuracies (a number from 0 to 1, or n/a where
# the run cannot go) as there are columns. A file edited by hand or cut short would be drawn as it
# reads, a picture of numbers no run gave: it is refused in one line naming the file, the line and
# what is wrong, exit status 1.
#   plots/check_data.sh FILE...
# Leaves out whether the numbers are the runs' own (the collectors' prune judges the runs).
set -u
for file in "$@"; do
    LC_ALL=C awk -v file="$file" '
        function refuse(why) { printf "plots: %s line %d: %s; run make experiment (or make experiment-extension) again, which writes it\n", file, NR, why; bad = 1; exit 1 }
        NR == 1 { if ($0 !~ /^# .*Written by collect_(results|extension)\.$/) refuse("not a heading the collectors write"); next }
        NR == 2 { if ($1 != "length" || NF < 3) refuse("not the columns line (\"length\" and the schemes)"); columns = NF; next }
        {
            if (NF != columns) refuse(NF " fields where the columns line has " columns)
            if ($1 !~ /^[1-9][0-9]*$/) refuse("\"" $1 "\" is not a length")
            for (i = 2; i <= NF; ++i)
                if ($i != "n/a" && !($i ~ /^[01]\.[0-9]+$/ && $i + 0 <= 1)) refuse("\"" $i "\" is not an accuracy (a number from 0 to 1, or n/a)")
            ++rows
        }
        END { if (!bad && rows == 0) { NR = NR + 1; refuse("no row of accuracies") } }' "$file" >&2 || exit 1
done
