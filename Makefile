# whereami: build, test and experiment. Plain GNU make; run `make help` for the targets.
# The library build/libwhereami.a holds the syllabus (tensor/ autograd/ nn/ positional/ tasks/) and what
# programs need beside it (startup/ files/ experiment/); the programs/ link it.

# This project's rules only: without make's built-in ones (RCS, SCCS, %.o from %.c, ...) make finds in
# milliseconds that nothing needs doing, instead of searching them for every header for a second or more.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

# Every path here is the checkout's: make runs in its folder (make -f from elsewhere would look for
# experiment/ and platform/ in the wrong place and stop on a file it cannot find).
ifeq ($(wildcard experiment/make_variables.mk),)
  $(error make runs in the checkout's folder, where this Makefile is: make -C $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST)))) $(MAKECMDGOALS) (the folder make is in, $(CURDIR), holds no experiment/make_variables.mk))
endif

CXX      ?= g++
SANITIZE ?=
TAGS     ?=
comma    := ,
space    := $(empty) $(empty)
include experiment/make_variables.mk
# The set-up (missing Debian packages installed on first use) runs while this line is read, before
# anything below asks what is installed: the compiler's multiarch folder, OpenBLAS's paths, Catch2's
# version and header. Read before the set-up, a fresh Debian 13 chose Catch2 v2, which the set-up
# then replaced with v3, and make test stopped on the header it had chosen.
include platform/debian.mk

# Debian keeps OpenBLAS's OpenMP build under the target's multiarch folder (x86_64-linux-gnu,
# aarch64-linux-gnu, ...): the compiler names it, so a cross compiler (CXX=aarch64-linux-gnu-g++,
# make test-arm64) finds the arm64 library. dpkg-architecture answers for a compiler that does not.
MULTIARCH    := $(or $(shell $(CXX) -print-multiarch 2>/dev/null),$(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null),x86_64-linux-gnu)
BLAS_INCLUDE := /usr/include/$(MULTIARCH)/openblas-openmp
BLAS_LIB     := /usr/lib/$(MULTIARCH)/openblas-openmp
# Catch2 v2 (Debian 12) is one header; v3 (Debian 13, Ubuntu 24.04) is headers and a static library.
# tests/catch.hpp includes whichever WAI_CATCH_VERSION names, so the tests are the same for both.
CATCH_VERSION := $(if $(wildcard /usr/include/catch2/catch_all.hpp),3,2)
CATCH_HEADER  := $(if $(filter 3,$(CATCH_VERSION)),/usr/include/catch2/catch_all.hpp,/usr/include/catch2/catch.hpp)
CATCH_LIBS    := $(if $(filter 3,$(CATCH_VERSION)),-lCatch2)
# A test run that matches no test case fails: v2 needs telling, v3 (3.7) does it by itself and no
# longer knows the option.
CATCH_NO_TESTS := $(if $(filter 3,$(CATCH_VERSION)),,--warn NoTests)

# A sanitizer build lives in its own folder so it never mixes objects with the normal one.
# This CPU's instructions, for a native build; a cross build (make test-arm64) gives NATIVE_ARCH=.
NATIVE_ARCH ?= -march=native
ifeq ($(SANITIZE),)
  BUILD    := build
  OPTIMISE := -O2 $(NATIVE_ARCH)
else
  BUILD    := build/$(SANITIZE)
  # -g1: the line tables a sanitizer's report names file and line from, without the variables' debug
  # information, which a report does not use (a third less compile time under AddressSanitizer).
  OPTIMISE := -O1 -g1 -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif
# make clean removes build/, where every build is (the sanitizers', arm64's, the web's); a BUILD given
# elsewhere is the user's folder, which make does not remove for them (refused before anything is written).
ifneq ($(filter clean,$(MAKECMDGOALS)),)
  ifeq ($(filter build build/%,$(patsubst ./%,%,$(BUILD:%/=%))),)
    $(error make clean removes build/ (every build under it), and BUILD=$(BUILD) is outside it: remove that folder yourself)
  endif
endif
ifneq ($(filter-out address undefined leak thread,$(subst $(comma), ,$(SANITIZE))),)
  $(error SANITIZE must be address, undefined, leak or thread, or a comma-separated mix; got '$(SANITIZE)')
endif

# The learner's build (below) adds these. -Werror=return-type: a function that can end without its
# return (a deleted `return out;`) does not compile; gcc would only warn, and the program would then
# stop somewhere unrelated, or go on with a garbage value.
CHECKED_FLAGS := -D_GLIBCXX_ASSERTIONS -DWAI_CHECKED_INDEXING -Werror=return-type
CXXFLAGS := -std=c++20 $(OPTIMISE) -fno-math-errno -Wall -Wextra -fopenmp -I. -isystem $(BLAS_INCLUDE) -MMD -MP
LDFLAGS  := $(if $(SANITIZE),-fsanitize=$(SANITIZE)) -fopenmp -L$(BLAS_LIB) -Wl,-rpath,$(BLAS_LIB)
LDLIBS   := -lopenblas -lm

PROGRAM_SOURCES := $(wildcard programs/*.cpp)
# A file named *_web.cpp stands in for a native one in the web build (platform/web.mk), *_plain.cpp in the
# build without the fast tree (platform/plain_build.mk); never here.
LIB_SOURCES := $(filter-out $(PROGRAM_SOURCES) %_web.cpp %_plain.cpp,$(wildcard tensor/*.cpp autograd/*.cpp nn/*.cpp positional/*.cpp tasks/*.cpp fast/*.cpp \
                 startup/*.cpp files/*.cpp experiment/*.cpp))
LIB_OBJECTS := $(LIB_SOURCES:%.cpp=$(BUILD)/%.o)
LIBRARY     := $(BUILD)/libwhereami.a
PROGRAMS    := $(BUILD)/train_position $(BUILD)/collect_results $(BUILD)/collect_extension $(BUILD)/contain

TEST_SOURCES := $(filter-out tests/main.cpp,$(wildcard tests/test_*.cpp)) tests/programs.cpp
TEST_OBJECTS := $(TEST_SOURCES:%.cpp=$(BUILD)/%.o)
TEST_BINARY  := $(BUILD)/run_tests

# make experiment and make test build on every core when no -j is given (the build is the slow part
# of a first run): their first recipe line is this make, with -j$(CORES) unless make already has a -j.
CORES       := $(shell nproc 2>/dev/null || echo 2)
PARALLEL_MAKE = $(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CORES))

.PHONY: all test clean deps check-deps check-test-deps help experiment experiment-locked experiment-runs bench bench-torch
.DEFAULT_GOAL := all

all: check-deps $(LIBRARY) $(PROGRAMS)

# A goal make has no rule for (a typo: make experimnet), or a file a rule needs that is not there:
# make's own "No rule to make target" does not say where the goals are listed.
.DEFAULT:
	$(error no goal or file '$@' $(if $(filter $@,$(MAKECMDGOALS)),(make help lists the goals),(another goal needs it: is a source file missing?)))

help:
	@echo "make            build the library and programs into build/"
	@echo "make test       build and run the tests (TAGS='[rope]' for one tag; SANITIZE=address or undefined)"
	@echo "make deps       install missing Debian packages with apt-get (as root, or through sudo)"
	@echo "make experiment the chapter's 28 runs into results/ (SEEDS='0 1 2 3 4' for more; resumable)"
	@echo "make experiment MY_SCHEMES=mine  your own scheme (positional/mine.cpp) run too, its rows after the chapter's table"
	@echo "make experiment SCHEDULER=slurm  the missing runs as a Slurm job array (SLURM_FLAGS go to sbatch), then the table"
	@echo "make experiment-jobs  one shell command per missing run, for parallel --sshloginfile HOSTS; make experiment-collect  the table"
	@echo "make experiment-extension  every scheme and t5 tested up to 512, RoPE with PI, NTK and YaRN (results/extension.md)"
	@echo "make plots      the pictures, SVG and PNG, into results/plots/ (needs make experiment's results; those of experiment-extension add two)"
	@echo "make lessons    build the lesson programs; make lessons-run runs them in order (06 waits for its exercise)"
	@echo "make exercises  build and check the learner's exercise files (lessons/exercises/)"
	@echo "make bench      time a training step of the experiment's model (one thread; then 1 thread against 2, 4, 8, one core busy);"
	@echo "                BENCH_SIZES='--dim 256 --layers 4 --length 256' times another size (also for bench-torch)"
	@echo "make bench-torch  the same step in PyTorch, timed alike in alternating rounds: both medians, spreads, the ratio"
	@echo "                BENCH_THREADS=2 compares train_position's step on 2 threads with PyTorch's on 2"
	@echo "make test-experiment  interrupt, corrupt and resume a short experiment (tests/experiment_resume.sh)"
	@echo "make test-slurm, make test-parallel  the experiment on a one-node Slurm cluster, and through GNU parallel and ssh"
	@echo "make valgrind   one short train_position run under valgrind; make fuzz  the weight-file reader under libFuzzer"
	@echo "make test-debian RELEASE=trixie  make experiment and make test in a fresh Debian 13 root (bookworm: 12), as root"
	@echo "make test-kernels  make test under each OpenBLAS kernel name this CPU runs, unset, on one CPU, beside a busy core"
	@echo "make test-arm64 the test program and two lessons cross-built for arm64, run under qemu-user"
	@echo "make web        train_position and the lessons as WebAssembly for node, and the page, into build/web/ (Emscripten)"
	@echo "make web-dist   the folder to publish, build/web-dist/: the page's files alone, the large ones compressed (make web makes it)"
	@echo "make web-serve  the page (build/web-dist/) on http://127.0.0.1:8000/ (WEB_PORT=N for another port)"
	@echo "make test-web   those under node held to the native programs, then the page in headless Chromium (not part of make test)"
	@echo "make test-web-long  the node programs held to the native ones at 2000 steps, the experiment's 14 configurations"
	@echo "make bench-web  a training step in headless Chromium against the native one-thread step"
	@echo "make clean      remove build/"

# One line naming the missing package, instead of a wall of compiler errors.
check-deps:
	@command -v $(CXX) >/dev/null || { echo "missing: the C++ compiler; run 'make deps' (Debian package g++)"; exit 1; }
	@test -f $(BLAS_INCLUDE)/cblas.h || { echo "missing: OpenBLAS (OpenMP build); run 'make deps' (Debian package libopenblas-openmp-dev)"; exit 1; }
	@test -f /usr/include/nlohmann/json.hpp || { echo "missing: the JSON parser for weight files; run 'make deps' (Debian package nlohmann-json3-dev)"; exit 1; }

check-test-deps: check-deps
	@test -f $(CATCH_HEADER) || { echo "missing: Catch2 (v2 or v3); run 'make deps' (Debian package catch2)"; exit 1; }

# The files of vectorised transcendental loops (exp for softmax rows; GELU's erf, plain and fused with
# the MLP's first Linear) call glibc's vector math.
FAST_MATH_OBJECTS := tensor/fast_math.o autograd/gelu.o fast/linear_gelu.o
$(addprefix $(BUILD)/,$(FAST_MATH_OBJECTS)): CXXFLAGS += -ffast-math
# The golden test reads PyTorch's numbers from the source tree, wherever it is run from.
$(BUILD)/tests/test_golden.o: CXXFLAGS += -DWAI_GOLDEN_DIR='"$(CURDIR)/tests/reference"'
# The tests that run this build's programs (tests/programs.hpp) find them, and the source tree, here.
$(BUILD)/tests/programs.o: CXXFLAGS += -DWAI_BUILD_DIR='"$(CURDIR)/$(BUILD)"' -DWAI_SOURCE_DIR='"$(CURDIR)"'

# Objects depend on the compiler and flags they were built with, written to $(BUILD)/compile_flags.txt
# and rewritten only when they change: a new flag rebuilds everything, any other edit of the
# makefiles rebuilds nothing.
COMPILE_FLAGS_FILE := $(BUILD)/compile_flags.txt
COMPILE_FLAGS_TEXT := $(CXX) $(CXXFLAGS) | checked: $(CHECKED_FLAGS) | fast_math: $(FAST_MATH_OBJECTS) -ffast-math
ifneq ($(shell cat $(COMPILE_FLAGS_FILE) 2>/dev/null),$(COMPILE_FLAGS_TEXT))
  $(shell mkdir -p $(BUILD) && printf '%s\n' '$(COMPILE_FLAGS_TEXT)' > $(COMPILE_FLAGS_FILE))
endif
$(BUILD)/%.o: %.cpp $(COMPILE_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(LIBRARY): $(LIB_OBJECTS)
	@rm -f $@
	ar rcs $@ $^

# The learner's build: the lessons, the exercises and the library they link are compiled with
# bounds-checked indexing (tensor/tensor.hpp) and the standard library's own checks, so an index one
# past the end stops with the tensor's shape and the index instead of reading a wrong number. The
# programs the experiment runs use the unchecked library above.
CHECKED_BUILD   := $(BUILD)/checked
CHECKED_LIBRARY := $(CHECKED_BUILD)/libwhereami.a
$(CHECKED_BUILD)/%.o: %.cpp $(COMPILE_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(CHECKED_FLAGS) -c $< -o $@
$(addprefix $(CHECKED_BUILD)/,$(FAST_MATH_OBJECTS)): CXXFLAGS += -ffast-math
$(CHECKED_LIBRARY): $(LIB_SOURCES:%.cpp=$(CHECKED_BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%: $(BUILD)/programs/%.o $(LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)
# The exercises' containment (programs/contain.cpp and its parts in containment/) uses the C++
# library alone.
CONTAIN_OBJECTS := $(patsubst %.cpp,$(BUILD)/%.o,programs/contain.cpp $(wildcard containment/*.cpp))
$(BUILD)/contain: $(CONTAIN_OBJECTS)
	$(CXX) $(LDFLAGS) $^ -o $@
# Kept after the build, as the lessons' and plots' objects are. Deleted as intermediate files, they
# were named by their .d files at the next make, which compiled and linked the programs again: on a
# fresh clone, while make test's other part was running them.
.SECONDARY: $(PROGRAMS:$(BUILD)/%=$(BUILD)/programs/%.o)

# ---- the chapter's experiment: 2 tasks x 7 schemes x SEEDS, each run one make target ----------
SEEDS    ?= 0 1
# As many runs at once as the machine has cores, one thread each (docs/performance.md, section 7).
JOBS     ?= $(CORES)
RESULTS  ?= results
RUN_FLAGS ?=
EXPERIMENT_SCHEMES := none sinusoid learned rope rope-1000000 alibi-0.5 alibi-0.0625
# Schemes of your own, run beside the chapter's under their own names and reported after its table
# (make experiment MY_SCHEMES=mine: positional/mine.cpp; any scheme train_position takes, rope:500 too).
MY_SCHEMES ?=
RUN_FILES := $(foreach t,lag seen,$(foreach s,$(EXPERIMENT_SCHEMES) $(subst :,-,$(MY_SCHEMES)),$(foreach n,$(SEEDS),$(RESULTS)/runs/$(t)_$(s)_seed$(n).txt)))
# A finished run is whole (renamed into place), so make must not delete it when interrupted.
.PRECIOUS: $(RESULTS)/runs/%.txt

# Settings the experiment cannot use stop make with one line before anything is built or run.
digits_removed = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1)))))))))))
ifneq ($(filter experiment experiment-locked experiment-runs experiment-jobs experiment-collect experiment-slurm experiment-extension extension-locked extension-runs,$(MAKECMDGOALS)),)
  $(if $(strip $(SEEDS)),,$(error SEEDS is empty: give one or more seeds like SEEDS="0 1"))
  $(foreach s,$(SEEDS),$(if $(call digits_removed,$(s)),$(error SEEDS: '$(s)' is not a non-negative integer (SEEDS="0 1"))))
  $(foreach s,$(SEEDS),$(if $(filter-out 0,$(filter 0%,$(s))),$(error SEEDS: '$(s)' has a leading zero; a run's files are named by the number (SEEDS="0 1"))))
  $(if $(filter-out $(words $(SEEDS)),$(words $(sort $(SEEDS)))),$(error SEEDS: a seed is given twice in '$(SEEDS)'))
  $(if $(filter-out 1,$(words $(JOBS)))$(call digits_removed,$(JOBS)),$(error JOBS must be a positive integer, got '$(JOBS)'))
  $(if $(subst 0,,$(JOBS)),,$(error JOBS must be a positive integer, got '$(JOBS)'))
endif

# RESULTS (one path with no space: make's targets cannot hold one) and RUN_FLAGS (only flags and
# numbers, since they are recorded in each result file and compared word for word) are checked by
# experiment/make_variables.mk, with every other variable a user gives make.
ifneq ($(filter experiment experiment-jobs experiment-collect experiment-extension plots,$(MAKECMDGOALS)),)
  # The results folder is locked with flock (util-linux): without it every lock would fail, and the
  # failure would read as another make holding the folder.
  $(if $(shell command -v flock),,$(error flock is missing: make $(firstword $(MAKECMDGOALS)) locks $(RESULTS) with it; install the Debian package util-linux))
  # Flags each run is given by the experiment itself (a second one would be refused by every run), or
  # that would make its figures other than the table's columns: refused here, once, in one line.
  run_flags_owned := $(filter --quiet --save --save-layout --load --test-lens --extend,$(RUN_FLAGS))
  $(if $(run_flags_owned),$(error RUN_FLAGS may not hold $(firstword $(run_flags_owned)): make experiment gives each run --quiet, --save and the lengths to test, and make experiment-extension also --load and --extend; training flags such as --steps, --lr, --dim are what RUN_FLAGS is for))
  $(if $(filter --check-flags,$(RUN_FLAGS)),$(error RUN_FLAGS may not hold --check-flags: make itself checks RUN_FLAGS with it, before any run starts or any result is removed))
  $(if $(filter --train-len,$(RUN_FLAGS)),$(error RUN_FLAGS may not hold --train-len: the chapter's table (make experiment) is for the training length 32, and make experiment-extension's lengths and scale factors are counted from it))
  # A typo never deletes finished work: before anything is pruned ("made with other flags"), each run's
  # flags are checked by train_position itself (--check-flags: every task and scheme the goal runs, so
  # a size one scheme cannot take is found too), and RUN_FLAGS no run could start with (an unknown flag,
  # a bad value, --name=value) stop make here with the program's line, every result file as it was;
  # so does an environment no run could start in (OMP_NUM_THREADS=abc), said as such, not as RUN_FLAGS'.
  # The programs are built first for that (the compiler's output on stderr).
  ifneq ($(filter experiment experiment-jobs experiment-extension,$(MAKECMDGOALS)),)
    run_flags_schemes := $(subst -,:,$(EXPERIMENT_SCHEMES) $(if $(filter experiment-extension,$(MAKECMDGOALS)),t5)) $(MY_SCHEMES)
    RUN_FLAGS_REFUSAL := $(shell $(PARALLEL_MAKE) all 1>&2 || { echo "the programs did not build (the messages above)"; exit 0; }; \
      line=$$($(BUILD)/train_position lag none 0 --check-flags 2>&1 >/dev/null) || \
        { echo "$$line; no run can start in this environment, whatever RUN_FLAGS hold, so no result file was removed"; exit 0; }; \
      for t in lag seen; do for s in $(run_flags_schemes); do \
        line=$$($(BUILD)/train_position $$t $$s 0 --check-flags $(RUN_FLAGS) 2>&1 >/dev/null) && continue; \
        echo "$$line; no $$t $$s run can start with RUN_FLAGS='$(RUN_FLAGS)', so no result file was removed"; exit 0; done; done)
    ifneq ($(RUN_FLAGS_REFUSAL),)
      $(error $(RUN_FLAGS_REFUSAL))
    endif
  endif
  # A second make on the same results folder would delete the first one's live temporary files:
  # refused here in one line while the first holds the lock (the recipes take the lock itself).
  ifneq ($(filter-out 0,$(shell [ ! -e $(RESULTS)/.lock ] || flock -n $(RESULTS)/.lock true 2>/dev/null; echo $$?)),)
    $(error another make experiment, experiment-extension or plots is using $(RESULTS) (it holds $(RESULTS)/.lock); wait for it to end, or give another RESULTS=)
  endif
endif

# The inner steps below run under the results folder's lock, which make experiment (or
# experiment-extension) takes on descriptor 9 after the checks above. Typed by hand, a step would
# skip both: the prune would remove every result made with other RUN_FLAGS, a typo's included. So a
# step runs only where descriptor 9 is that lock, as its outer goal leaves it.
inner_goals := $(filter experiment-locked experiment-runs experiment-slurm extension-locked extension-runs,$(MAKECMDGOALS))
ifneq ($(inner_goals),)
  ifneq ($(shell [ /proc/self/fd/9 -ef $(RESULTS)/.lock ] 2>/dev/null && echo held),held)
    $(error make $(firstword $(inner_goals)) is a step of make $(if $(filter extension-%,$(firstword $(inner_goals))),experiment-extension,experiment), which runs it under $(RESULTS)/.lock after checking its settings; run make $(if $(filter extension-%,$(firstword $(inner_goals))),experiment-extension,experiment))
  endif
endif

# Under the results folder's lock (held on a file descriptor that the sub-make, which replaces the
# shell so that make's SIGTERM reaches it, and every run inherit): invalid or differently-set result
# files are removed first, then only the missing runs are made, JOBS at a time (or, with
# SCHEDULER=slurm, as one Slurm job array: experiment/cluster.mk); then the table, the summary and the
# picture of the table.
experiment:
	+@$(PARALLEL_MAKE) all
	@mkdir -p $(RESULTS)/runs
	@exec 9>>$(RESULTS)/.lock; flock -n 9 || { echo "experiment: another make is using $(RESULTS) (it holds $(RESULTS)/.lock); wait for it to end, or give another RESULTS=" >&2; exit 1; }; \
	  exec $(MAKE) --no-print-directory experiment-locked

experiment-locked:
	@$(BUILD)/collect_results --prune --run-flags "$(RUN_FLAGS)" --my-schemes "$(MY_SCHEMES)" $(RESULTS)/runs $(SEEDS)
	@done=$$(ls $(RUN_FILES) 2>/dev/null | wc -l); echo $$done > $(RESULTS)/runs/.done; \
	  export EXPERIMENT_CLOCK="$$(date +%s) $$done"; \
	  exec $(MAKE) --no-print-directory -j$(JOBS) $(if $(SCHEDULER),experiment-$(SCHEDULER),experiment-runs)
	@$(collect_and_draw)

# The table, the summary and its picture from the runs' results (also make experiment-collect's),
# each written whole or not at all (files/atomic_file.hpp, plots/draw.sh).
collect_and_draw = $(BUILD)/collect_results --run-flags "$(RUN_FLAGS)" --my-schemes "$(MY_SCHEMES)" $(RESULTS)/runs experiment/chapter_table.txt \
    $(RESULTS)/table.txt $(RESULTS)/summary.md $(SEEDS) && mkdir -p $(RESULTS)/plots && \
  sh plots/draw.sh experiment $(RESULTS)/plots "experiment='$(RESULTS)/data'" && echo "experiment: drew $(RESULTS)/plots/experiment.svg and .png"

experiment-runs: $(RUN_FILES)

# Order-only on the program: rebuilding it does not throw away finished runs (rm -r results/ does).
# Each run also leaves its weights beside its result (RUNS/NAME.safetensors, for make plots).
$(RESULTS)/runs/%.txt: | $(BUILD)/train_position
	@experiment/run_one.sh $@ $(words $(RUN_FILES)) $(BUILD)/train_position $(RUN_FLAGS)
.PRECIOUS: $(RESULTS)/runs/%.safetensors

# The benchmark's matmul bookkeeping wraps cblas_sgemm at link time (bench/gemm_recording.hpp).
$(BUILD)/bench_step: $(BUILD)/bench/bench_step.o $(BUILD)/bench/bench_flags.o $(BUILD)/bench/thread_scaling.o $(BUILD)/bench/gemm_recording.o $(LIBRARY)
	$(CXX) $(LDFLAGS) -Wl,--wrap=cblas_sgemm $^ -o $@ $(LDLIBS)

# One thread: the experiment runs one thread per run (docs/performance.md, "Threads: one per run").
# Both kernels settings, their repeats in turn (KERNELS=plain or fast for one). Then the training
# step train_position takes (the fast kernels, the batch in micro-batches) on 1 thread against 2, and
# against 4 and 8 where the machine has those cores, as the machine is and with one core held by a
# busy-loop child process, their repeats in turn, and the ratios (docs/performance.md, sections 10
# and 14). BENCH_SIZES (e.g. '--dim 256 --layers 4 --length 256') times another size instead, the
# step and the scaling with 3 repeats of 3 steps (a step there takes seconds).
KERNELS ?= both
BENCH_SIZES ?=
BENCH_SCALING := $(foreach n,2 4 8,$(if $(shell [ $(CORES) -ge $(n) ] && echo yes),$(n)))
bench: check-deps $(BUILD)/bench_step
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BUILD)/bench_step --threads 1 --kernels $(KERNELS) $(BENCH_SIZES) $(if $(strip $(BENCH_SIZES)),--steps 3 --repeats 3)
	$(foreach n,$(BENCH_SCALING),$(BUILD)/bench_step --scaling $(n) $(BENCH_SIZES) $(if $(strip $(BENCH_SIZES)),--steps 3 --repeats 3) &&) true

# PyTorch (Debian python3-torch, never needed by the build) on the same model and step, one thread,
# timed as ours is, in alternating rounds until both medians settle (bench/torch_compare.py): each
# side's median and spread, and the ratio with its spread (KERNELS=plain: ours on the plain kernels;
# BENCH_SIZES as for make bench, with 2 steps a repeat and 1 repeat a round, a step there taking seconds).
# PyTorch's BLAS is the same system
# OpenBLAS, so it gets the kernels ours picked (startup/openblas_startup.hpp): otherwise, on a CPU newer than
# OpenBLAS 0.3.21, it would run the generic ones and look twice as slow as it is.
# BENCH_THREADS=N (default 1) compares on N threads: ours is then train_position's step (the batch in
# micro-batches), PyTorch's its step with N intra-op threads; the fast kernels only.
BENCH_THREADS ?= 1
bench-torch: check-deps $(BUILD)/bench_step
	@case '$(BENCH_THREADS) $(KERNELS)' in '1 '*|*' both'|*' fast') ;; *) echo "bench-torch: BENCH_THREADS above 1 compares train_position's step on the fast kernels; KERNELS=$(KERNELS) takes one thread" >&2; exit 2;; esac
	@/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "missing: PyTorch for the comparison; install the Debian package python3-torch"; exit 1; }
	@/usr/bin/python3 bench/torch_compare.py $(BUILD)/bench_step --kernels $(if $(filter plain,$(KERNELS)),plain,fast) --threads $(BENCH_THREADS) \
	  $(if $(strip $(BENCH_SIZES)),--sizes '$(strip $(BENCH_SIZES))' --steps 2 --repeats 1)

# Catch2's main is compiled once into its own object: it is the slow part of a test build.
$(TEST_BINARY): $(BUILD)/tests/main.o $(TEST_OBJECTS) $(LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(CATCH_LIBS) $(LDLIBS)
$(BUILD)/tests/%.o: CXXFLAGS += -DWAI_CATCH_VERSION=$(CATCH_VERSION)

# The whole suite (no TAGS, no SANITIZE) also proves the build without the fast tree (plain-build,
# platform/plain_build.mk) and runs every exercise checker on its fixtures (exercises-selftest). A sanitizer build leaves out [slow] (two 2000-step trainings) and [roundtrip]
# (28 trainings held to PyTorch's logits): they check numbers, not memory, and the weight files'
# memory is the [weights_file] and [cli] tests' and the fuzzer's.
# test-programs builds everything it runs, so a parallel build can come first (make -j2 test-programs).
.PHONY: test-programs
test-programs: $(TEST_BINARY)
# Without TAGS the test program runs in two parts at once (tests/run_parts.sh): the files below, whose
# cases mostly start programs and wait for them (the lessons, the make tests), and every other case.
# Under a sanitizer the lessons alone are about half of the run (they train, several times slower).
TEST_FIRST_PART := test_lessons $(if $(SANITIZE),,test_cli_make test_cli_make_variables test_cli_runtime)
test: check-test-deps
	+@$(PARALLEL_MAKE) test-programs
	$(if $(TAGS)$(SANITIZE),,+@$(PARALLEL_MAKE) plain-build)
	$(if $(TAGS)$(SANITIZE),,@sh lessons/exercises/selftest.sh '$(EXERCISE_CONTAIN_COMMAND)' $(EXERCISE_BUILD) $(EXERCISE_NAMES))
	$(if $(TAGS),OMP_NUM_THREADS=$${OMP_NUM_THREADS:-2} $(TEST_BINARY) $(CATCH_NO_TESTS) $(TAGS),\
	  @OMP_NUM_THREADS=$${OMP_NUM_THREADS:-2} sh tests/run_parts.sh $(TEST_BINARY) "$(CATCH_NO_TESTS)" \
	    "$(if $(SANITIZE),~[slow]~[roundtrip])" $(BUILD)/tests/part $(TEST_FIRST_PART))

clean:
	rm -rf build

include lessons/lessons.mk
include experiment/extension.mk experiment/cluster.mk plots/plots.mk
include tests/reliability.mk tests/fuzz/fuzz.mk
include platform/platforms.mk platform/web.mk platform/plain_build.mk

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/*/*/*/*.d)
