#!/bin/bash
# make test-slurm: make experiment SCHEDULER=slurm on a real one-node Slurm cluster started here (munged,
# slurmctld and slurmd with their key, configuration, state and logs in a temporary folder, stopped
# by pid at the end), with the short runs of RUN_FLAGS below (about a second each). The cluster's
# MaxArraySize is 10, so the 14 runs go as two job arrays; its MinJobAge is 4 s, so sbatch --wait
# looks every 2 s (with the default 300 s it backs off to 32 s between looks). It must give the table and summary a local
# make experiment gives, byte for byte; submit only the missing runs when run again; refuse a bad
# SCHEDULER or SLURM_FLAGS and stop on a failing run with one line and no table; and, interrupted,
# cancel its arrays and leave no partial result, a rerun finishing the table.
#   tests/slurm_experiment.sh   (Debian slurm-wlm and munge; make test-slurm installs them)
# Leaves out more than one node (the nodes' shared folder is this machine's own) and accounting.
. "$(dirname "$0")/script_setup.sh" slurm
for program in munged slurmctld slurmd sbatch; do
    command -v $program >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v $program >/dev/null 2>&1 || { echo "slurm_experiment: $program is missing (Debian packages slurm-wlm and munge; make test-slurm installs them)"; exit 1; }
done
chmod 755 "$root"  # munged wants every folder above its socket searchable by all
flags="--steps 30 --eval-seqs 16"
show_logs() { for log in "$root"/log/*; do echo "    --- $log"; tail -n 15 "$log" | sed 's/^/    | /'; done; }

# A TCP port nothing listens on, for each daemon, so a Slurm already on this machine is left alone.
free_port() {
    local port
    for port in $(shuf -i 20000-60000 -n 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
    return 1
}

echo "slurm_experiment: a one-node cluster in $root"
mkdir -p "$root"/{munge,socket,state,spool,log}
chmod 700 "$root/munge"
mungekey --create --keyfile="$root/munge/munge.key" || { echo "slurm_experiment: mungekey could not write a key"; exit 1; }
munged --foreground --socket="$root/socket/munge.socket" --key-file="$root/munge/munge.key" \
    --pid-file="$root/munge/munged.pid" --seed-file="$root/munge/munged.seed" --log-file="$root/log/munged.log" \
    > "$root/log/munged.out" 2>&1 &
daemons+=($!)

if [ "$(id -u)" = 0 ]; then slurm_user=root; else slurm_user=$(id -un); fi
cpus=$(slurmd -C | sed -n 's/.* CPUs=\([0-9][0-9]*\).*/\1/p')
ctld_port=$(free_port) && slurmd_port=$(free_port) || { echo "slurm_experiment: no free TCP port"; exit 1; }
export SLURM_CONF="$root/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=whereami
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$slurm_user
SlurmdUser=$slurm_user
AuthType=auth/munge
AuthInfo=socket=$root/socket/munge.socket
CredType=cred/munge
StateSaveLocation=$root/state
SlurmdSpoolDir=$root/spool
SlurmctldPidFile=$root/slurmctld.pid
SlurmdPidFile=$root/slurmd.pid
SlurmctldLogFile=$root/log/slurmctld.log
SlurmdLogFile=$root/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MaxArraySize=10
MinJobAge=4
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
for i in $(seq 50); do [ -S "$root/socket/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" > "$root/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" > "$root/log/slurmd.out" 2>&1 &
daemons+=($!)
state=
for i in $(seq 60); do
    state=$(sinfo -h -N -n localhost -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" = idle ]; then
    ok "munged, slurmctld and slurmd started (pids ${daemons[*]}); sinfo shows localhost idle with $cpus CPUs"
else
    fail "the node is not idle after 30 s (sinfo: '${state}')"; show_logs; exit 1
fi

# slurm_experiment RESULTS [make arguments...]: make experiment SCHEDULER=slurm of the short runs.
slurm_experiment() {
    local results=$1
    shift
    make --no-print-directory experiment SCHEDULER=slurm RESULTS="$results" SEEDS=0 RUN_FLAGS="$flags" "$@"
}
results_in() { ls "$1"/runs/*.txt 2>/dev/null | wc -l; }
leftovers_in() { find "$1" -name '*.tmp*' 2>/dev/null | wc -l; }
queued() { squeue -h -n whereami 2>/dev/null | wc -l; }

echo "slurm_experiment: make experiment SCHEDULER=slurm, then make experiment on this machine alone"
start=$(date +%s)
slurm_experiment "$root/slurm" > "$root/slurm.log" 2>&1
status=$?
seconds=$(( $(date +%s) - start ))
arrays=$(grep -c 'submitted as job array' "$root/slurm.log")
if [ $status = 0 ] && [ "$arrays" = 2 ] && grep -q 'runs 1-10 of 14 submitted' "$root/slurm.log" &&
   grep -q 'runs 11-14 of 14 submitted' "$root/slurm.log" && [ "$(grep -cE '^\[ ?[0-9]+/14\]' "$root/slurm.log")" = 14 ] &&
   ! grep -q 'warning' "$root/slurm.log"; then
    ok "14 runs as two job arrays (MaxArraySize 10), each run's line printed, no warning, in $seconds s"
else
    fail "make experiment SCHEDULER=slurm: exit status $status, $arrays arrays"; sed 's/^/    | /' "$root/slurm.log" | tail -n 20; show_logs
fi
make --no-print-directory experiment RESULTS="$root/local" SEEDS=0 RUN_FLAGS="$flags" > "$root/local.log" 2>&1 ||
    { fail "the local make experiment failed"; tail "$root/local.log"; }
if cmp -s "$root/slurm/table.txt" "$root/local/table.txt" && cmp -s "$root/slurm/summary.md" "$root/local/summary.md"; then
    ok "table.txt and summary.md are the local run's, byte for byte"
else
    fail "the Slurm table differs from the local one:"; diff "$root/slurm/table.txt" "$root/local/table.txt" | head
fi

echo "slurm_experiment: run again, only the missing runs are submitted"
output=$(slurm_experiment "$root/slurm" 2>&1)
if [ $? = 0 ] && printf '%s' "$output" | grep -q 'every run has its result; nothing to submit' && [ "$(queued)" = 0 ]; then
    ok "nothing missing: nothing submitted, the table written again"
else
    fail "a rerun with nothing missing: $output"
fi
rm "$root"/slurm/runs/lag_rope_seed0.txt "$root"/slurm/runs/seen_none_seed0.txt
printf 'lag  rope  garbage\n' > "$root/slurm/runs/seen_learned_seed0.txt"
output=$(slurm_experiment "$root/slurm" 2>&1)
if [ $? = 0 ] && printf '%s' "$output" | grep -q 'runs 1-3 of 3 submitted' && [ "$(printf '%s\n' "$output" | grep -cE '^\[ ?[0-9]+/14\]')" = 3 ] &&
   cmp -s "$root/slurm/table.txt" "$root/local/table.txt"; then
    ok "2 results removed and 1 corrupted: 3 runs submitted, the same table byte for byte"
else
    fail "after removing 3 results:"; printf '%s\n' "$output" | sed 's/^/    | /' | tail
fi

echo "slurm_experiment: bad settings and a failing run stop make with their line and no table"
check_refused() {  # NAME EXPECTED RESULTS make-arguments...: exit non-zero, EXPECTED in the output, no table
    local name=$1 expected=$2 results=$3 output status
    shift 3
    output=$(slurm_experiment "$results" "$@" 2>&1)
    status=$?
    if [ $status != 0 ] && printf '%s' "$output" | grep -qF -- "$expected" && [ ! -e "$results/table.txt" ] &&
       [ "$(leftovers_in "$results")" = 0 ] && [ "$(queued)" = 0 ]; then
        ok "$name: exit status $status, $(printf '%s\n' "$output" | grep -F -- "$expected" | head -n 1)"
    else
        fail "$name: exit status $status, table $([ -e "$results/table.txt" ] && echo written || echo absent)"
        printf '%s\n' "$output" | sed 's/^/    | /' | tail
    fi
}
check_refused "SCHEDULER=slurmm" "SCHEDULER must be slurm" "$root/bad" SCHEDULER=slurmm
check_refused "SLURM_FLAGS=--partition=nosuch" "Invalid partition name specified" "$root/bad" SLURM_FLAGS=--partition=nosuch
check_refused "SLURM_FLAGS=--time=x" "slurm: sbatch refused the job array" "$root/bad" SLURM_FLAGS=--time=x
[ "$(results_in "$root/bad")" = 0 ] && ok "nothing was run for the refused settings" || fail "the refused settings left $(results_in "$root/bad") results"
check_refused "a run whose loss turns NaN (RUN_FLAGS+=--lr 1e30)" "slurm: a task of job array" "$root/nan" RUN_FLAGS="$flags --lr 1e30"
grep -qs 'train_position: training stopped at step' "$root"/nan/slurm/*.out &&
    ok "each failed task's output names the step its training stopped at" || fail "no task output names the NaN"

echo "slurm_experiment: interrupted while it waits, the arrays are cancelled; a rerun finishes"
for signal in INT TERM; do
    results="$root/interrupt_$signal" log="$root/interrupt_$signal.log"
    : > "$log"
    set -m  # its own process group, as a command typed in a terminal
    slurm_experiment "$results" RUN_FLAGS="--steps 100 --eval-seqs 16" > "$log" 2>&1 &
    pid=$!
    set +m
    while ! grep -q 'runs 11-14 of 14 submitted' "$log" && kill -0 $pid 2>/dev/null; do sleep 0.1; done
    # Once tasks run, and then at once: a signal just after the second array is queued.
    [ $signal = INT ] && while [ "$(squeue -h -n whereami -t R | wc -l)" = 0 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done
    kill -s $signal -- -$pid
    wait $pid 2>/dev/null
    status=$?
    for i in $(seq 60); do [ "$(queued)" = 0 ] && break; sleep 0.5; done
    sleep 1
    kept=$(results_in "$results") left=$(leftovers_in "$results") still=$(queued)
    if [ $status != 0 ] && [ "$still" = 0 ] && [ "$left" = 0 ] && [ "$kept" -lt 14 ] && grep -q 'cancelled' "$log"; then
        ok "SIG$signal: exit status $status, both arrays cancelled, $kept of 14 whole results, no temporary file"
    else
        fail "SIG$signal: exit status $status, $still tasks still queued, $kept results, $left temporary files"; tail "$log"
        find "$results" -name '*.tmp*' -exec ls -l --time-style=+%T.%N {} + | sed 's/^/    left: /'
        for out in "$results"/slurm/*.out; do [ -s "$out" ] && sed "s|^|    $(basename "$out"): |" "$out"; done
    fi
done
output=$(slurm_experiment "$results" RUN_FLAGS="--steps 100 --eval-seqs 16" 2>&1)
status=$?
redone=$(printf '%s\n' "$output" | grep -cE '^\[ ?[0-9]+/14\]')
# A run Slurm killed outright (SIGKILL) can leave its temporary files; the rerun's prune removes them.
[ $status = 0 ] && [ -e "$results/table.txt" ] && [ "$redone" = $((14 - kept)) ] && [ "$(leftovers_in "$results")" = 0 ] &&
    ok "the rerun submitted the $redone missing runs and wrote the table, no temporary file left" ||
    { fail "the rerun after SIGTERM ($(leftovers_in "$results") temporary files left):"; printf '%s\n' "$output" | tail; }

[ $failed = 0 ] && echo "slurm_experiment: passed" || echo "slurm_experiment: FAILED"
exit $failed
