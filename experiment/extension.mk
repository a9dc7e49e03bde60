# make experiment-extension: beyond the chapter, how far past the training length each scheme goes,
# and what test-time context extension does for RoPE. Included by the Makefile.
#   Every scheme of make experiment, and t5, on both tasks and every seed of SEEDS: one training run
#   each (2000 steps at 32, as make experiment), its weights saved, tested at EXTENSION_LENGTHS.
#   Each RoPE model (rope, rope:1000000) is then tested from its saved weights at each length L with
#   position interpolation, NTK-aware scaling and YaRN at s = L / 32: one run per model, method, length.
# Every run is one make target, written atomically (experiment/run_extension.sh), two at a time with one
# thread each; an interrupted run leaves nothing, and make experiment-extension resumes. RUN_FLAGS
# (e.g. --steps 100 --eval-seqs 16 for a quick try) go to every run (a test drops their --steps); the
# Makefile refuses --train-len and the flags set per run. Then programs/collect_extension.cpp writes
# results/extension.md and results/extension/{lag,seen}.dat.
# Leaves out the chapter's experiment itself (make experiment) and the pictures (plots/plots.mk).
.PHONY: experiment-extension extension-locked extension-runs

EXTENSION_DIR     := $(RESULTS)/extension
EXTENSION_LENGTHS := 32 64 128 256 512
EXTENSION_SCHEMES := none sinusoid learned rope rope-1000000 alibi-0.5 alibi-0.0625 t5
EXTENSION_METHODS := pi ntk yarn

extension_comma := ,
extension_empty :=
extension_space := $(extension_empty) $(extension_empty)
EXTENSION_LENGTH_LIST := $(subst $(extension_space),$(extension_comma),$(strip $(EXTENSION_LENGTHS)))
extension_models = $(foreach t,lag seen,$(foreach s,$(1),$(foreach n,$(SEEDS),$(t)_$(s)_seed$(n))))
EXTENSION_MODELS  := $(call extension_models,$(EXTENSION_SCHEMES))
EXTENSION_TRAINED := $(EXTENSION_MODELS:%=$(EXTENSION_DIR)/trained/%.txt)
# The weights are results too, beside the trained run's result (the prune judges, sets aside and
# removes them with it): named here, make never takes them for intermediate files to delete.
EXTENSION_WEIGHTS := $(EXTENSION_MODELS:%=$(EXTENSION_DIR)/trained/%.safetensors)
EXTENSION_TESTS   := $(foreach m,$(EXTENSION_METHODS),$(foreach L,$(EXTENSION_LENGTHS),\
                       $(foreach model,$(call extension_models,rope rope-1000000),$(EXTENSION_DIR)/$(m)-$(L)/$(model).txt)))
EXTENSION_TOTAL   := $(words $(EXTENSION_TRAINED) $(EXTENSION_TESTS))

# Under the results folder's lock (as make experiment): invalid or differently-set result files are
# removed first, then only the missing runs are made, two at a time.
experiment-extension: all
	@mkdir -p $(EXTENSION_DIR)
	@exec 9>>$(RESULTS)/.lock; flock -n 9 || { echo "experiment-extension: another make is using $(RESULTS) (it holds $(RESULTS)/.lock); wait for it to end, or give another RESULTS=" >&2; exit 1; }; \
	  exec $(MAKE) --no-print-directory extension-locked

extension-locked:
	@$(BUILD)/collect_extension --prune --run-flags "$(RUN_FLAGS)" $(RESULTS) $(EXTENSION_LENGTH_LIST) $(SEEDS)
	@$(MAKE) --no-print-directory -j$(JOBS) extension-runs
	@$(BUILD)/collect_extension --run-flags "$(RUN_FLAGS)" $(RESULTS) $(EXTENSION_LENGTH_LIST) $(SEEDS)

extension-runs: $(EXTENSION_TRAINED) $(EXTENSION_WEIGHTS) $(EXTENSION_TESTS)

# One recipe makes both files (a pattern rule with two targets). Order-only on the program, as in
# make experiment: rebuilding it does not throw away finished runs.
$(EXTENSION_DIR)/trained/%.txt $(EXTENSION_DIR)/trained/%.safetensors: | $(BUILD)/train_position
	@experiment/run_extension.sh $(EXTENSION_DIR) $* train $(BUILD)/train_position $(EXTENSION_LENGTH_LIST) $(EXTENSION_TOTAL) $(RUN_FLAGS)

# A test with an extension depends on the weights: a model trained again is tested again.
define extension_test_rule
$(EXTENSION_DIR)/$(1)-$(2)/%.txt: $(EXTENSION_DIR)/trained/%.safetensors | $(BUILD)/train_position
	@experiment/run_extension.sh $(EXTENSION_DIR) $$* $(1) $(BUILD)/train_position $(2) $(EXTENSION_TOTAL) $(RUN_FLAGS)
endef
$(foreach m,$(EXTENSION_METHODS),$(foreach L,$(EXTENSION_LENGTHS),$(eval $(call extension_test_rule,$(m),$(L)))))

# A finished run is whole (renamed into place), so make must not delete it when interrupted.
.PRECIOUS: $(EXTENSION_DIR)/%.txt $(EXTENSION_DIR)/trained/%.safetensors
