#!/bin/sh
# One task of make experiment's Slurm job array (experiment/slurm_submit.sh submits it):
#   sbatch --array=0-(N-1) experiment/slurm_array.sh JOBS_FILE FIRST
# runs line FIRST + SLURM_ARRAY_TASK_ID + 1 of JOBS_FILE, one self-contained shell command of
# make experiment-jobs' list. Slurm runs a copy of this script, so it reads nothing beside it.
# Leaves out choosing or checking the run: the line is the experiment's own command.
set -u
jobs_file=$1 first=$2
line_number=$((first + ${SLURM_ARRAY_TASK_ID:?slurm_array.sh is run by sbatch --array, which sets SLURM_ARRAY_TASK_ID} + 1))
job=$(sed -n "${line_number}p" "$jobs_file")
[ -n "$job" ] || { echo "slurm_array: $jobs_file has no line $line_number" >&2; exit 1; }
exec sh -c "$job"
