# Sourced first by the test scripts that drive make (tests/experiment_resume.sh,
# extension_experiment.sh, slurm_experiment.sh, parallel_experiment.sh):
#   . "$(dirname "$0")/script_setup.sh" NAME
# Runs from the source tree, as a make of its own (not a job of the make that started the script);
# gives a temporary folder $root (whereami_NAME.XXXXXX), removed at exit after the daemons the script
# started (their pids in the array `daemons`) are stopped and `cleanup_more` (a command, if set) is
# run; and ok/fail, which print a check's line (fail also sets failed=1, the script's exit status).
# Leaves out each script's own checks.
set -u
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL
root=$(mktemp -d "${TMPDIR:-/tmp}/whereami_$1.XXXXXX")
daemons=()
cleanup_more=
at_exit() {
    for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null; done
    [ -z "$cleanup_more" ] || eval "$cleanup_more"
    rm -rf "$root"
}
trap at_exit EXIT
failed=0
ok() { echo "  [ok] $*"; }
fail() { echo "  [FAILED] $*"; failed=1; }
