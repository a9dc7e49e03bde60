# make experiment past one machine. Included by the Makefile.
#   make experiment-jobs     prunes as make experiment does, then prints one self-contained shell
#                            command per missing run, for GNU parallel over SSH hosts or any batch
#                            system: parallel --sshloginfile HOSTS < jobs
#   make experiment-collect  writes table.txt, summary.md and the picture once every run has its result
#   make experiment SCHEDULER=slurm   the missing runs as one Slurm job array, then collects
# Each job is the experiment's own run rule as make would run it (make -n), RESULTS made absolute and
# `cd` into this folder first: the hosts must share this folder and RESULTS (NFS or the like).
# Leaves out copying files between hosts, and every scheduler but Slurm.
.PHONY: experiment-jobs experiment-collect experiment-slurm

SCHEDULER   ?=
SLURM_FLAGS ?=
ifneq ($(filter-out slurm,$(SCHEDULER)),)
  $(error SCHEDULER must be slurm, or empty for this machine alone; got '$(SCHEDULER)')
endif

# experiment_job_list FILE: the missing runs' commands into FILE, one line each. A make -n of every run
# file, each goal after a marker goal, tells which runs make would redo and with what command, so the
# list follows the run rule whatever it becomes (under -n nothing runs, so the goals print in order
# even with -j); experiment/job_list.sh turns the listing into lines. The recipe lines that use it start
# with + (make's mark for a line that runs make), so the make inside shares make's job slots.
JOB_MARK := experiment-job-start
$(JOB_MARK)/%: ; @: $(JOB_MARK)
experiment_job_list = $(MAKE) --no-print-directory -s -n RESULTS=$(abspath $(RESULTS)) \
    $(foreach f,$(RUN_FILES),$(JOB_MARK)/$(notdir $(f)) $(abspath $(f))) > $(1).listing \
  && experiment/job_list.sh $(CURDIR) $(JOB_MARK) < $(1).listing > $(1)

# Only the commands go to stdout: building and pruning report on stderr.
experiment-jobs:
	@$(MAKE) --no-print-directory all >&2
	@mkdir -p $(RESULTS)/runs
	@$(BUILD)/collect_results --prune --run-flags "$(RUN_FLAGS)" --my-schemes "$(MY_SCHEMES)" $(RESULTS)/runs $(SEEDS) >&2
	@rm -f $(RESULTS)/runs/.done  # the jobs count finished results themselves
	+@list=$$(mktemp) && $(call experiment_job_list,$$list) && cat $$list; status=$$?; rm -f $$list $$list.listing; exit $$status

# Missing runs are counted when make reads this file, and refused in one line as bad settings are.
ifneq ($(filter experiment-collect,$(MAKECMDGOALS)),)
  MISSING_RUNS := $(filter-out $(wildcard $(RUN_FILES)),$(RUN_FILES))
  $(if $(MISSING_RUNS),$(error experiment-collect: $(words $(MISSING_RUNS)) of $(words $(RUN_FILES)) runs have no result in $(RESULTS)/runs yet (still running, failed or not started: make experiment-jobs lists them); nothing written))
endif
experiment-collect: all
	@$(collect_and_draw)

# make experiment's runs step with SCHEDULER=slurm (after the prune, before the collection): the job
# list is kept in RESULTS/slurm/ beside each task's output, as the array reads it while it runs.
experiment-slurm:
	@mkdir -p $(RESULTS)/slurm
	+@list=$$(mktemp "$(abspath $(RESULTS))/slurm/jobs.XXXXXX") && $(call experiment_job_list,$$list) \
	  && rm -f $$list.listing && experiment/slurm_submit.sh $$list $(abspath $(RESULTS))/slurm $(SLURM_FLAGS)

# The tests: a one-node Slurm cluster started on this machine, and GNU parallel here and over ssh to
# localhost. Their tools are test-time only, installed here when missing (make deps' way), never by
# the build.
.PHONY: test-slurm test-parallel
test-slurm: all
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="slurm-wlm munge"
	@bash tests/slurm_experiment.sh
test-parallel: all
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="parallel"
	@bash tests/parallel_experiment.sh
