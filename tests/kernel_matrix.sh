#!/bin/sh
# make test-kernels: make test under each setting a learner's machine may give it on this CPU:
# OPENBLAS_CORETYPE unset, set to each kernel name this CPU runs, the whole suite on one CPU
# (taskset -c 0), and beside a process that keeps one core busy. A line for each setting as it ends,
# then the table; each run's report in BUILD/kernels/SETTING.log.
#   tests/kernel_matrix.sh BUILD [SETTING...]
#     SETTING  unset, one-cpu, busy-core, or a kernel name (Haswell); none given: every one of them,
#              with every name OpenBLAS takes here and this CPU runs (a one-step run on them ends well)
# Exit status 0 when every setting passed.
# Leaves out other CPUs: run it on each machine (docs/platforms.md has the tables).
set -u
build=$1
shift
case $(uname -m) in
    x86_64) names="Prescott Core2 Penryn Dunnington Nehalem Sandybridge Haswell Zen SkylakeX Cooperlake SapphireRapids
                   Atom Opteron Opteron_SSE3 Barcelona Bobcat Bulldozer Piledriver Steamroller Excavator" ;;
    aarch64) names="ARMV8 CortexA53 CortexA55 CortexA57 CortexA72 CortexA73 NeoverseN1 NeoverseV1 NeoverseN2 ThunderX2T99 TSV110 EMAG8180" ;;
    *) names="" ;;
esac
make --no-print-directory test-programs >/dev/null || { echo "test-kernels: the test build failed (make test-programs)"; exit 1; }
if [ $# -eq 0 ]; then
    set -- unset one-cpu busy-core
    for name in $names; do
        env OPENBLAS_CORETYPE="$name" "$build/train_position" lag rope 0 --steps 1 --dim 8 --mlp 8 --layers 1 --batch 2 \
            --eval-seqs 2 --threads 1 >/dev/null 2>&1 && set -- "$@" "$name"
    done
fi
mkdir -p "$build/kernels"
table="" status=0 busy=""
trap '[ -z "$busy" ] || kill "$busy" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
for setting in "$@"; do
    log="$build/kernels/$setting.log"
    start=$(date +%s)
    case $setting in
        unset) env -u OPENBLAS_CORETYPE make --no-print-directory test > "$log" 2>&1 ;;
        one-cpu) env -u OPENBLAS_CORETYPE taskset -c 0 make --no-print-directory test > "$log" 2>&1 ;;
        busy-core)
            # A busy loop on the last CPU for as long as the suite runs.
            taskset -c "$(($(nproc) - 1))" sh -c 'while :; do :; done' &
            busy=$!
            env -u OPENBLAS_CORETYPE make --no-print-directory test > "$log" 2>&1
            kill "$busy"
            busy="" ;;
        *) env OPENBLAS_CORETYPE="$setting" make --no-print-directory test > "$log" 2>&1 ;;
    esac
    result=$?
    count=$(grep '^tests: [0-9]* passed, [0-9]* failed$' "$log" | tail -n 1)
    line="$setting: $([ $result = 0 ] && echo passed || echo FAILED), ${count:-no count} ($(( $(date +%s) - start )) s)"
    echo "test-kernels: $line"
    table="$table$line
"
    [ $result = 0 ] || status=1
done
echo "test-kernels on $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) CPUs:"
printf '%s' "$table"
exit $status
