#!/bin/bash
# make test-parallel: the experiment as a job list (make experiment-jobs) run by GNU parallel, then
# collected (make experiment-collect), with the short runs of RUN_FLAGS below (about a second each):
# once with parallel -j2 here, once over ssh through an sshd started here on a free port of localhost
# (its host key, client key and configuration in a temporary folder, stopped by pid at the end).
# Each must give the table and summary a local make experiment gives, byte for byte. Also: only the
# commands reach stdout; a list after every run is done is empty, and after a corrupted result holds
# that one run; bad SEEDS and collecting with runs missing are refused with one line.
#   tests/parallel_experiment.sh   (Debian parallel; openssh-server for the ssh part)
# Where sshd cannot be had (not installed and apt-get cannot install it, or it does not start), the
# ssh part runs parallel with --sshlogin : (this machine, without ssh) instead, and says so.
# Leaves out hosts other than this one: the shared folder is this machine's own.
. "$(dirname "$0")/script_setup.sh" parallel
command -v parallel >/dev/null 2>&1 || { echo "parallel_experiment: GNU parallel is missing (Debian package parallel; make test-parallel installs it)"; exit 1; }
made_privsep=
cleanup_more='[ -z "$made_privsep" ] || rmdir "$made_privsep"'
flags="--steps 30 --eval-seqs 16"
settings=(SEEDS=0 RUN_FLAGS="$flags")
jobs_of() { make --no-print-directory experiment-jobs RESULTS="$1" "${settings[@]}" "${@:2}"; }
collect() { make --no-print-directory experiment-collect RESULTS="$1" "${settings[@]}"; }
same_as_local() {  # NAME RESULTS
    if cmp -s "$2/table.txt" "$root/local/table.txt" && cmp -s "$2/summary.md" "$root/local/summary.md"; then
        ok "$1: table.txt and summary.md are the local make experiment's, byte for byte"
    else
        fail "$1: the table differs from the local one:"; diff "$2/table.txt" "$root/local/table.txt" | head
    fi
}

echo "parallel_experiment: the reference, make experiment on this machine"
make --no-print-directory experiment RESULTS="$root/local" "${settings[@]}" > "$root/local.log" 2>&1 ||
    { fail "the local make experiment failed"; tail "$root/local.log"; exit 1; }

echo "parallel_experiment: make experiment-jobs | parallel -j2, then make experiment-collect"
jobs_of "$root/here" > "$root/here.jobs" 2> "$root/here.err"
status=$?
if [ $status = 0 ] && [ "$(wc -l < "$root/here.jobs")" = 14 ] && [ "$(grep -c "^cd $PWD && experiment/run_one.sh $root/here/runs/[a-z]*_[a-z0-9.-]*_seed0.txt 14 " "$root/here.jobs")" = 14 ]; then
    ok "14 jobs, each 'cd $PWD && experiment/run_one.sh $root/here/runs/...'; nothing else on stdout"
else
    fail "make experiment-jobs: exit status $status, $(wc -l < "$root/here.jobs") lines:"; head -n 3 "$root/here.jobs" "$root/here.err"
fi
output=$(collect "$root/here" 2>&1)
status=$?
[ $status = 2 ] && [ "$output" = "experiment/cluster.mk:$(grep -n 'error experiment-collect' experiment/cluster.mk | cut -d: -f1): *** experiment-collect: 14 of 14 runs have no result in $root/here/runs yet (still running, failed or not started: make experiment-jobs lists them); nothing written.  Stop." ] &&
    [ ! -e "$root/here/table.txt" ] && ok "collect before the runs: exit status $status, $output" || fail "collect before the runs: exit status $status, $output"
(cd / && parallel -j2 < "$root/here.jobs") > "$root/here.log" 2>&1 || { fail "parallel -j2 failed"; tail "$root/here.log"; }
collect "$root/here" > "$root/here.collect" 2>&1 || { fail "make experiment-collect failed"; tail "$root/here.collect"; }
same_as_local "parallel -j2, run from /" "$root/here"

output=$(jobs_of "$root/here" 2>/dev/null)
[ $? = 0 ] && [ -z "$output" ] && ok "every run done: the job list is empty" || fail "every run done, the list still has: $output"
printf 'seen  rope  garbage\n' > "$root/here/runs/seen_rope_seed0.txt"
jobs_of "$root/here" > "$root/again.jobs" 2> "$root/again.err"
if [ $? = 0 ] && [ "$(wc -l < "$root/again.jobs")" = 1 ] && grep -q "seen_rope_seed0.txt" "$root/again.jobs" &&
   grep -q 'is not a valid result for its run' "$root/again.err"; then
    ok "a corrupted result: pruned (said on stderr), and the list is that one run"
else
    fail "after a corrupted result:"; cat "$root/again.jobs" "$root/again.err" | head
fi
for setting in "SEEDS=x" "SEEDS=0 0"; do
    output=$(jobs_of "$root/bad" "$setting" 2>&1)
    status=$?
    [ $status = 2 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && [ ! -e "$root/bad" ] &&
        ok "experiment-jobs $setting: exit status 2, $output" || fail "experiment-jobs $setting: exit status $status: $output"
done
output=$(make --no-print-directory experiment-collect RESULTS="$root/here" SEEDS=-1 2>&1)
[ $? = 2 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] && ok "experiment-collect SEEDS=-1: $output" || fail "experiment-collect SEEDS=-1: $output"

echo "parallel_experiment: over ssh to localhost, parallel --sshloginfile HOSTS"
# An sshd of our own: key-only, on a free port of 127.0.0.1, everything it reads in $root/ssh.
start_sshd() {
    local sshd=/usr/sbin/sshd port
    if [ ! -x $sshd ]; then
        [ "$(id -u)" = 0 ] || return 1
        echo "  (installing openssh-server with apt-get for the ssh part: a test-time tool, not a build dependency)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server > "$root/apt.log" 2>&1 || return 1
    fi
    if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then mkdir -p /run/sshd && made_privsep=/run/sshd; fi
    mkdir -p "$root/ssh" && chmod 700 "$root/ssh"
    ssh-keygen -q -t ed25519 -N '' -f "$root/ssh/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$root/ssh/id" || return 1
    cp "$root/ssh/id.pub" "$root/ssh/authorized_keys"
    port=$(shuf -i 20000-60000 -n 1)
    cat > "$root/ssh/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $root/ssh/host_key
AuthorizedKeysFile $root/ssh/authorized_keys
PidFile $root/ssh/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
EOF
    cat > "$root/ssh/config" <<EOF
Host whereami-test-host
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $root/ssh/id
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile $root/ssh/known_hosts
  LogLevel ERROR
EOF
    $sshd -D -e -f "$root/ssh/sshd_config" > "$root/ssh/sshd.log" 2>&1 &
    daemons+=($!)
    for i in $(seq 50); do
        ssh -F "$root/ssh/config" whereami-test-host true 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
if start_sshd; then
    echo "2/whereami-test-host" > "$root/hosts"
    ssh_flags=(--ssh "ssh -F $root/ssh/config" --sshloginfile "$root/hosts")
    how="over ssh (sshd pid ${daemons[*]}, HOSTS: 2/whereami-test-host)"
else
    echo "  (no sshd here: $(tail -n 1 "$root/ssh/sshd.log" 2>/dev/null || echo 'openssh-server could not be installed'); running parallel --sshlogin : instead, this machine without ssh)"
    ssh_flags=(--sshlogin 2/:)
    how="with --sshlogin 2/: (no ssh)"
fi
jobs_of "$root/ssh_run" > "$root/ssh.jobs" 2>/dev/null || fail "make experiment-jobs failed"
(cd / && parallel "${ssh_flags[@]}" < "$root/ssh.jobs") > "$root/ssh.log" 2>&1
status=$?
ran=$(grep -cE '^\[ ?[0-9]+/14\]' "$root/ssh.log")
[ $status = 0 ] && [ "$ran" = 14 ] && ok "14 jobs run $how" || { fail "parallel $how: exit status $status, $ran runs"; tail "$root/ssh.log"; }
collect "$root/ssh_run" > "$root/ssh.collect" 2>&1 || { fail "make experiment-collect failed"; tail "$root/ssh.collect"; }
same_as_local "parallel $how" "$root/ssh_run"

[ $failed = 0 ] && echo "parallel_experiment: passed" || echo "parallel_experiment: FAILED"
exit $failed
