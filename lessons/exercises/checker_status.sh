#!/bin/sh
# The sentence for an exercise program's exit status when it is not a verdict (0 solved, 10 not
# solved yet, 1 wrong answer): the learner's code ran too long or stopped the program.
#   checker_status.sh NAME STATUS SECONDS [OUTPUT]   (SECONDS: the time limit it ran under; OUTPUT: a
#                                                      file holding what the program printed, or /dev/stdin)
# EXERCISE_FILE_MIB in the environment: the size limit on a file it ran under (exercises.mk's, 64 MiB
# unless given, as contain's own --file-bytes).
# STATUS ended-N: the program exited with N, a verdict's status, but printed no verdict line.
# A signal alone does not say which line of the learner's code caused it, nor why: the sentence
# names a cause only when the program's own output shows it (a failed assertion's line, the C
# library's report of a damaged heap), and otherwise says that it cannot tell.
# Leaves out the verdicts themselves: the checker prints those.
name=$1 status=$2 seconds=$3
output=$(cat "${4:-/dev/null}" 2>/dev/null)
# The first line of the output matching PATTERN (grep -E).
said() {
    printf '%s\n' "$output" | grep -m 1 -E -- "$1"
}
unknown="the signal does not say which line of your code did it, nor why; undefined behaviour anywhere in it can end this way"
case $status in
    ended-*) echo "$name: your code ended the program before the checker could judge it (exit status ${status#ended-} and no verdict: an _exit() in your code?)" ;;
    124) echo "$name: your code ran for more than $seconds s, so it was stopped (a loop that never ends, perhaps)" ;;
    134) assertion=$(said "Assertion .* failed")
         heap=$(said "^(free|malloc|realloc|munmap_chunk|malloc_consolidate)\(\): |double free|corrupted (size|double-linked|top size|unsorted)")
         terminate=$(said "^terminate called")
         if [ -n "$assertion" ]; then
             # "FILE:LINE: FUNCTION: Assertion 'CHECK' failed." without the function, which can be long.
             where=$(printf '%s\n' "$assertion" | grep -oE "[^ :]+:[0-9]+:" | head -n 1)
             check=$(printf '%s\n' "$assertion" | sed -E 's/.*(Assertion .* failed)\.?$/\1/')
             case $assertion in
                 *stl_vector.h*"__n < this->size()"*)
                     echo "$name: your code stopped the program with a failed assertion (SIGABRT): a std::vector was indexed past its end ($where $check: the standard library's check, on in the exercise build); the assertion names the check, not the line of code that indexed" ;;
                 *) echo "$name: your code stopped the program with a failed assertion (SIGABRT): $where $check" ;;
             esac
         elif [ -n "$heap" ]; then
             echo "$name: your code stopped the program: the C library found its heap corrupted (SIGABRT; it said: $(printf '%s' "$heap" | cut -c 1-200)): a block freed twice, or memory written outside its block, at some earlier line it does not name"
         elif [ -n "$terminate" ]; then
             echo "$name: your code stopped the program with std::terminate (SIGABRT; it said: $(printf '%s' "$terminate" | cut -c 1-200))"
         elif [ $# -ge 4 ]; then
             echo "$name: your code stopped the program with SIGABRT (abort) and printed no reason for it; $unknown"
         else
             echo "$name: your code stopped the program with SIGABRT (abort); the signal alone does not say why: look for a reason printed just above it (a failed assertion's line, the C library's report of a corrupted heap)"
         fi ;;
    153) echo "$name: your code wrote a file past the size limit on a file, ${EXERCISE_FILE_MIB:-64} MiB, so the program was stopped (SIGXFSZ): a loop that writes without end, perhaps (make's EXERCISE_FILE_MIB sets the limit)" ;;
    136) echo "$name: your code stopped the program with an arithmetic error (SIGFPE), which on x86-64 an integer division or remainder by zero raises (or the smallest integer divided by -1); a float division by zero gives inf, not this" ;;
    139) echo "$name: your code stopped the program with a bad memory access (SIGSEGV): it read or wrote memory the program does not own, or needed more stack than it has; $unknown" ;;
    *) if [ "$status" -gt 128 ] 2>/dev/null; then
           signal_name=$(kill -l $((status - 128)) 2>/dev/null)
           echo "$name: your code stopped the program with signal $((status - 128))${signal_name:+ (SIG$signal_name)}; the signal alone does not say why"
       else
           echo "$name: the program stopped with exit status $status, which is not a verdict"
       fi ;;
esac
