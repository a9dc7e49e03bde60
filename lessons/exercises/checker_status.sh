#!/bin/sh
# The sentence for an exercise program's exit status when it is not a verdict (0 solved, 10 not
# solved yet, 1 wrong answer): the learner's code ran too long or stopped the program.
#   checker_status.sh NAME STATUS SECONDS     (SECONDS: the time limit it ran under)
# STATUS ended-N: the program exited with N, a verdict's status, but printed no verdict line.
# Leaves out the verdicts themselves: the checker prints those.
name=$1 status=$2 seconds=$3
case $status in
    ended-*) echo "$name: your code ended the program before the checker could judge it (exit status ${status#ended-} and no verdict: an _exit() in your code?)" ;;
    124) echo "$name: your code ran for more than $seconds s, so it was stopped (a loop that never ends, perhaps)" ;;
    134) echo "$name: your code stopped the program with a failed assertion (SIGABRT; its message says which); with the standard library's checks on, an index past the end of a std::vector ends this way, and a heap the C library finds corrupted (a write past an array's end, a double free: 'free(): invalid pointer', 'corrupted size') too" ;;
    136) echo "$name: your code stopped the program with an arithmetic error (SIGFPE), as an integer division by zero does" ;;
    139) echo "$name: your code stopped the program with a bad memory access (SIGSEGV), as an index or pointer past the end, or a null pointer, does" ;;
    *) if [ "$status" -gt 128 ] 2>/dev/null; then
           echo "$name: your code stopped the program with signal $((status - 128))"
       else
           echo "$name: the program stopped with exit status $status, which is not a verdict"
       fi ;;
esac
