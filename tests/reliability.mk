# Reliability checks beyond the unit tests (included by the Makefile):
#   make test              also runs tests/test_cli_*.cpp ([cli]): the real programs on bad input,
#                          a forced non-finite loss, and the same run giving the same bytes
#   make test-experiment   tests/experiment_resume.sh: a short make experiment interrupted with
#                          SIGINT and SIGTERM, resumed, its result files corrupted, redone
#   make test-extension    tests/extension_experiment.sh: a short make experiment-extension end to end,
#                          run again, damaged, made with other RUN_FLAGS, refused while in use
#   make valgrind          one short train_position run (save, then load) under valgrind's memcheck
#   make test-kernels      tests/kernel_matrix.sh: make test with OPENBLAS_CORETYPE unset and set to each
#                          kernel name this CPU runs, on one CPU, and beside a busy core
#                          (KERNEL_SETTINGS='unset one-cpu Haswell' for some of them)
# Leaves out the fuzzer (tests/fuzz/fuzz.mk) and the sanitizer builds (make test SANITIZE=...).
.PHONY: test-experiment test-extension valgrind test-kernels

KERNEL_SETTINGS ?=
test-kernels: check-test-deps all
	@sh tests/kernel_matrix.sh $(BUILD) $(KERNEL_SETTINGS)

# The [cli] tests run the programs of this build (build/ or build/address/ ...), make plots' too, so
# the test binary needs them first; order-only, so relinking a program does not relink the tests.
$(TEST_BINARY): | $(PROGRAMS) $(LESSON_PROGRAMS) $(BUILD)/bench_step $(PLOT_PROGRAMS)
$(BUILD)/tests/test_fuzz_regressions.o: CXXFLAGS += -DWAI_FUZZ_REGRESSIONS_DIR='"$(CURDIR)/tests/fuzz/regressions"'

test-experiment: all
	@bash tests/experiment_resume.sh $(SANITIZE)

test-extension: all
	@bash tests/extension_experiment.sh $(SANITIZE)

# valgrind 3.19 has no AVX-512, so this build is for a plain x86-64 (no -march=native), in its own
# folder, and OpenBLAS is told its kernels and libgomp its spin count (else the program would start
# itself again to set them: startup/openblas_startup.hpp).
VALGRIND_BUILD := build/valgrind
VALGRIND_RUN   := lag rope 0 --steps 4 --dim 16 --heads 2 --mlp 32 --layers 2 --batch 4 --eval-seqs 4 --threads 2 --quiet
valgrind: check-deps
	@command -v valgrind >/dev/null || { echo "missing: valgrind; run 'make deps' (Debian package valgrind)"; exit 1; }
	@$(MAKE) --no-print-directory SANITIZE= BUILD=$(VALGRIND_BUILD) OPTIMISE='-O1 -g' $(VALGRIND_BUILD)/train_position
	@rm -f $(VALGRIND_BUILD)/weights.safetensors
	@for extra in "--save $(VALGRIND_BUILD)/weights.safetensors" "--load $(VALGRIND_BUILD)/weights.safetensors"; do \
	  echo "valgrind: train_position $(VALGRIND_RUN) $$extra"; \
	  OPENBLAS_CORETYPE=Haswell GOMP_SPINCOUNT=100000 valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
	    --trace-children=yes $(VALGRIND_BUILD)/train_position $(VALGRIND_RUN) $$extra \
	  || { echo "valgrind: FAILED: memcheck reported errors (above)"; exit 1; }; done
	@echo "valgrind: no invalid read or write, no definite leak"
