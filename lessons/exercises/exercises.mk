# Exercises: lessons/exercises/NAME.cpp is the learner's file (one marked place), NAME.hpp what it
# must provide, check/NAME.cpp its checker; linked with the checked library into build/exercises/NAME,
# which says where the answer stands. exercises.list gives the order.
#   make exercises                  the progress board: every exercise, one line each, k of N solved
#   make exercise EXERCISE=NAME     one exercise's full report
#   make exercise-train EXERCISE=NAME [TASK=lag SEED=0 STEPS=2000]
#                                   train the chapter's model with your code, beside the library's
#   make exercises-selftest         every checker on its scaffold, a right answer and wrong ones
#                                   (tests/exercises/NAME/*.cpp, each saying what it expects), the
#                                   learner's build refusing each does_not_compile_*.cpp, and each
#                                   right answer that plugs into the model trained briefly
# Exit status: 0 for "solved" and "not solved yet", non-zero for a wrong answer or a file that does
# not compile.
# EXERCISE_BUILD, the folder of the exercises' objects and programs, is $(BUILD)/exercises; the tests
# give one of their own, holding a fixture's object (tests/exercises/NAME/CASE.o) as the learner's, to
# run make's goals on learner code that is not in lessons/exercises/.
EXERCISE_BUILD := $(BUILD)/exercises
EXERCISE_NAMES := $(shell sed -n 's/^\([a-z_0-9]*\) |.*/\1/p' lessons/exercises/exercises.list)
EXERCISE_PROGRAMS := $(EXERCISE_NAMES:%=$(EXERCISE_BUILD)/%)
EXERCISE_TRAINERS := $(patsubst lessons/exercises/train/%.cpp,%,$(wildcard lessons/exercises/train/*.cpp))
# The fixtures: tests/exercises/NAME/CASE.cpp stands in for the learner's file. A CASE named
# does_not_compile_* is code the learner's build must refuse: it is compiled as the learner's file is,
# and the compiler's messages kept (NAME/CASE.compiler, its last line "exit STATUS") for the self-test.
EXERCISE_FIXTURE_SOURCES := $(wildcard tests/exercises/*/*.cpp)
EXERCISE_REFUSED_SOURCES := $(foreach f,$(EXERCISE_FIXTURE_SOURCES),$(if $(findstring /does_not_compile_,$(f)),$(f)))
EXERCISE_FIXTURES := $(patsubst tests/exercises/%.cpp,$(EXERCISE_BUILD)/fixtures/%,$(filter-out $(EXERCISE_REFUSED_SOURCES),$(EXERCISE_FIXTURE_SOURCES)))
EXERCISE_REFUSALS := $(patsubst tests/exercises/%.cpp,$(EXERCISE_BUILD)/fixtures/%.compiler,$(EXERCISE_REFUSED_SOURCES))
# How the learner's file is compiled, the same for the fixtures that stand in for it.
EXERCISE_COMPILE = $(CXX) $(CXXFLAGS) $(CHECKED_FLAGS)

.PHONY: exercises exercise exercise-train exercises-selftest
.SECONDARY: $(EXERCISE_PROGRAMS:%=%.o) $(EXERCISE_NAMES:%=$(EXERCISE_BUILD)/check/%.o) \
            $(EXERCISE_TRAINERS:%=$(EXERCISE_BUILD)/train/%.o) $(EXERCISE_FIXTURES:%=%.o)

# The learner's object and program are written beside their place and renamed into it: two make
# exercise at once (two terminals) each see a whole file, never one the other is writing ("Text file
# busy" when one linked over the program the other was running).
$(EXERCISE_BUILD)/%.o: lessons/exercises/%.cpp $(COMPILE_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(EXERCISE_COMPILE) -MT $@ -MF $(@:.o=.d) -c $< -o $@.tmp$$$$ && mv -f $@.tmp$$$$ $@
$(EXERCISE_BUILD)/fixtures/%.o: tests/exercises/%.cpp $(COMPILE_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(EXERCISE_COMPILE) -c $< -o $@
# A refused fixture's compiler messages: a failed compile is this rule's expected outcome, so it
# records the status instead of stopping make; the self-test judges it.
$(EXERCISE_BUILD)/fixtures/%.compiler: tests/exercises/%.cpp $(COMPILE_FLAGS_FILE)
	@mkdir -p $(dir $@)
	@$(EXERCISE_COMPILE) -MT $@ -MF $@.d -c $< -o $@.o >$@.tmp 2>&1; echo "exit $$?" >>$@.tmp; rm -f $@.o; mv $@.tmp $@

$(EXERCISE_BUILD)/%: $(EXERCISE_BUILD)/%.o $(EXERCISE_BUILD)/check/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@.tmp$$$$ $(LDLIBS) && mv -f $@.tmp$$$$ $@
# A fixture is linked with its exercise's checker, in place of the learner's file.
define exercise_fixture_rule
$(1): $(1).o $(EXERCISE_BUILD)/check/$(word 1,$(subst /, ,$(patsubst $(EXERCISE_BUILD)/fixtures/%,%,$(1)))).o $(CHECKED_LIBRARY)
	$$(CXX) $$(LDFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach f,$(EXERCISE_FIXTURES),$(eval $(call exercise_fixture_rule,$(f))))
# The training program of an exercise that plugs into the model: the learner's file, train/NAME.cpp;
# and the same with the right fixture in its place, which the self-test trains briefly.
$(EXERCISE_BUILD)/train_%: $(EXERCISE_BUILD)/%.o $(EXERCISE_BUILD)/train/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@.tmp$$$$ $(LDLIBS) && mv -f $@.tmp$$$$ $@
# A wrong answer whose numbers turn NaN (wrong_nan.cpp, where an exercise has one) is trained too: the
# run must stop naming the learner's function, not the learning rate; and one whose numbers are finite
# but far too large (wrong_huge.cpp), whose loss turns NaN: the run must say the library's stayed finite.
# And a right answer that is slow (slow.cpp): its run must stop at the time limit, saying so.
EXERCISE_TRAINED_FIXTURES := right wrong_nan wrong_huge slow
EXERCISE_FIXTURE_TRAINERS := $(foreach fixture,$(EXERCISE_TRAINED_FIXTURES),\
  $(patsubst tests/exercises/%/$(fixture).cpp,$(EXERCISE_BUILD)/fixtures/%/train_$(fixture),\
    $(wildcard $(EXERCISE_TRAINERS:%=tests/exercises/%/$(fixture).cpp))))
$(EXERCISE_BUILD)/fixtures/%/train_right: $(EXERCISE_BUILD)/fixtures/%/right.o $(EXERCISE_BUILD)/train/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)
$(EXERCISE_BUILD)/fixtures/%/train_wrong_nan: $(EXERCISE_BUILD)/fixtures/%/wrong_nan.o $(EXERCISE_BUILD)/train/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)
$(EXERCISE_BUILD)/fixtures/%/train_wrong_huge: $(EXERCISE_BUILD)/fixtures/%/wrong_huge.o $(EXERCISE_BUILD)/train/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)
$(EXERCISE_BUILD)/fixtures/%/train_slow: $(EXERCISE_BUILD)/fixtures/%/slow.o $(EXERCISE_BUILD)/train/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# A time limit on the learner's code: a checker takes seconds (the slowest about 6 s on a busy
# 2-core machine), a 2000-step training about a minute. The program runs contained
# (build/contain, programs/contain.cpp): at the limit it and everything it started are killed, a
# SIGTERM ignored or a setsid() notwithstanding; when it ends, every process it left running is
# stopped too, and a line says so; its output is passed on up to 1 MiB, and the cut is said; and its
# verdict counts only when the checker wrote it to the descriptor contain gives it, never because a
# line of output says so. And a memory limit (ulimit -v, 4 GiB; the programs need under 1 GiB): a
# loop that only grows a vector ends with std::bad_alloc, reported as the learner's error, before it
# fills the machine.
EXERCISE_SECONDS ?= 60
EXERCISE_TRAIN_SECONDS ?= 900
# exercise-train's hard limit around the program: each run's EXERCISE_TRAIN_SECONDS, and a minute for
# the tests. A step of learner code that never returns is stopped by the program's own watch, each
# run's limit and a grace (train/train.hpp); this limit is for code that stops that watch.
EXERCISE_TRAIN_HARD_SECONDS = $(shell echo $$(( 2 * $(EXERCISE_TRAIN_SECONDS) + 60 )))
exercise_limits = ulimit -v 4194304;
# The make that builds the programs while make reads this file: $(shell) passes it no variable given
# on the command line, so EXERCISE_BUILD, which the tests give, is given again.
exercise_make = $(MAKE) --no-print-directory -s EXERCISE_BUILD=$(EXERCISE_BUILD)
# contain's command for the learner's code: where the kernel allows contain's namespaces, the checkout
# and the build folders are read-only to it (it writes its files in /tmp), so it cannot change the
# checker, its objects or the library a later run trusts; and no file it writes grows past
# EXERCISE_FILE_MIB MiB (the programs write none; a loop that writes without end stops there, with
# SIGXFSZ, which checker_status.sh names). EXERCISE_CONTAIN=subreaper runs it in contain's second
# mode even where the first is allowed (the tests hold both).
EXERCISE_FILE_MIB ?= 64
EXERCISE_CONTAIN ?=
EXERCISE_CONTAIN_COMMAND = $(BUILD)/contain $(foreach d,$(sort $(abspath $(CURDIR) $(BUILD) $(EXERCISE_BUILD))),--read-only $(d)) \
  --file-bytes $(shell echo $$(( $(EXERCISE_FILE_MIB) * 1048576 ))) $(if $(EXERCISE_CONTAIN),--subreaper)
# In contain's subreaper mode those folders stay writable, and the learner's code could put a program
# of its own where the checker's is (a script that gives "solved" on the verdict's descriptor), which
# make would not link again, its objects being older. There, once make has built the program $(2),
# a second make is told that the learner's object $(1) is new (-W), so that the checker is linked
# from its objects before each run. (Not in the first make: it would then not compile a learner's
# file edited since. An object file or the library changed under it would still be used: only the
# namespaces' read-only folders keep those; contain's header says so.)
exercise_relink = { $(EXERCISE_CONTAIN_COMMAND) --mode | grep -q '^subreaper' || exit 0; $(exercise_make) -W $(1) $(2) 1>&2; }
ifneq ($(filter exercise exercises exercise-train,$(MAKECMDGOALS)),)
  $(foreach v,EXERCISE_SECONDS EXERCISE_TRAIN_SECONDS,$(if $(filter-out 1,$(words $($(v))))$(call digits_removed,$($(v)))$(if $(subst 0,,$($(v))),,zero),\
    $(error $(v) must be a whole number of seconds above 0, got '$($(v))')))
endif

# The board runs while make reads this file, so that a wrong answer ends with one sentence saying
# so rather than with make's report of a failed command; its output goes to stderr.
ifneq ($(filter exercises,$(MAKECMDGOALS)),)
  EXERCISES_STATUS := $(shell $(exercise_make) $(BUILD)/contain 1>&2 || { echo 1; exit 0; }; mkdir -p $(EXERCISE_BUILD); \
                        EXERCISE_SECONDS=$(EXERCISE_SECONDS) EXERCISE_FILE_MIB=$(EXERCISE_FILE_MIB) \
                        sh lessons/exercises/board.sh "$(MAKE) EXERCISE_BUILD=$(EXERCISE_BUILD)" \
                          '$(EXERCISE_CONTAIN_COMMAND)' $(EXERCISE_BUILD) $(EXERCISE_NAMES) 1>&2; echo $$?)
  ifneq ($(EXERCISES_STATUS),0)
    $(error exercises: a wrong answer or a file that does not compile, as the board above says; make exits non-zero so a script can tell)
  endif
endif
exercises:
	@:

EXERCISE ?=
TASK ?= lag
SEED ?= 0
STEPS ?= 2000
# make exercise and make exercise-train also run while make reads this file, for the same reason as
# the board: a wrong answer, or lines that differ, end with one sentence (exit 2), not with make's
# report of a failed command. A report's own exit status: 0 solved, 10 not yet, 1 wrong; any other
# (the time limit, a crash in the learner's code) is said by checker_status.sh and is an error too.
# exercise-train's 10 (your code is not written yet) is said once by the program itself; make exits 0,
# as make exercise does for "not solved yet".
ifneq ($(filter exercise,$(MAKECMDGOALS)),)
  $(if $(EXERCISE),,$(error make exercise: name one with EXERCISE=NAME; the exercises: $(EXERCISE_NAMES)))
  $(if $(filter $(EXERCISE),$(EXERCISE_NAMES)),,$(error make exercise: no exercise '$(EXERCISE)'; the exercises: $(EXERCISE_NAMES)))
  # A verdict's status (0, 1, 10) counts only with the checker's verdict line, which contain takes from
  # its own descriptor (NAME.verdict): without it the learner's code ended the program (an _exit(0), or
  # a printed "solved" line and an _exit(0), would otherwise read as "solved").
  # The report is kept in $(EXERCISE_BUILD)/NAME.report: a crash's sentence reads what the program
  # printed before it (checker_status.sh).
  EXERCISE_REPORT_FILE := $(EXERCISE_BUILD)/$(EXERCISE).report
  EXERCISE_REPORT := $(shell $(exercise_make) $(BUILD)/contain $(EXERCISE_BUILD)/$(EXERCISE) 1>&2 || exit 3; \
                       ( $(call exercise_relink,$(EXERCISE_BUILD)/$(EXERCISE).o,$(EXERCISE_BUILD)/$(EXERCISE)) ) || exit 3; \
                       rm -f $(EXERCISE_REPORT_FILE) 2>/dev/null || { echo unwritable; exit 0; }; \
                       report=$$(mktemp $(EXERCISE_REPORT_FILE).XXXXXX 2>/dev/null) || { echo unwritable; exit 0; }; \
                       ( $(exercise_limits) exec $(EXERCISE_CONTAIN_COMMAND) --verdict $$report.verdict $(EXERCISE_SECONDS) $(EXERCISE_BUILD)/$(EXERCISE) ) >$$report 2>&1; \
                       status=$$?; cat $$report 1>&2; \
                       case $$status in (0|1|10) grep -qE '^$(EXERCISE): (solved|not solved yet|wrong answer)' $$report.verdict || status=ended-$$status ;; esac; \
                       rm -f $$report.verdict; mv -f $$report $(EXERCISE_REPORT_FILE); echo $$status)
  ifeq ($(EXERCISE_REPORT),)
    $(error $(EXERCISE): lessons/exercises/$(EXERCISE).cpp does not compile (the compiler's messages above))
  endif
  # An earlier report is removed first: one that cannot be written again is never shown as this one.
  # rm -f fails on what it cannot remove (a read-only folder, a folder at the report's path); a report
  # another make exercise wrote a moment ago is removed like any other (two terminals at once: it was
  # taken for an unwritable folder when it appeared between the rm and a check that nothing was there).
  ifeq ($(EXERCISE_REPORT),unwritable)
    $(error $(EXERCISE): cannot write its report $(EXERCISE_REPORT_FILE) (a read-only build folder?); give a writable one with BUILD=)
  endif
  ifeq ($(EXERCISE_REPORT),1)
    $(error $(EXERCISE): a wrong answer, as the report above says; make exits non-zero so a script can tell)
  endif
  ifneq ($(filter-out 0 1 10,$(EXERCISE_REPORT)),)
    $(error $(shell EXERCISE_FILE_MIB=$(EXERCISE_FILE_MIB) sh lessons/exercises/checker_status.sh $(EXERCISE) $(EXERCISE_REPORT) $(EXERCISE_SECONDS) $(EXERCISE_REPORT_FILE)))
  endif
endif
exercise:
	@:

ifneq ($(filter exercise-train,$(MAKECMDGOALS)),)
  $(if $(filter $(EXERCISE),$(EXERCISE_TRAINERS)),,$(error make exercise-train: EXERCISE must be one that plugs into the model: $(EXERCISE_TRAINERS)))
  EXERCISE_TRAINING := $(shell $(exercise_make) $(BUILD)/contain $(EXERCISE_BUILD)/train_$(EXERCISE) 1>&2 || exit 3; \
                         ( $(call exercise_relink,$(EXERCISE_BUILD)/$(EXERCISE).o,$(EXERCISE_BUILD)/train_$(EXERCISE)) ) || exit 3; \
                         verdict=$$(mktemp $(EXERCISE_BUILD)/train_$(EXERCISE).verdict.XXXXXX 2>/dev/null) || { echo unwritable; exit 0; }; \
                         ( $(exercise_limits) exec $(EXERCISE_CONTAIN_COMMAND) --verdict $$verdict $(EXERCISE_TRAIN_HARD_SECONDS) $(EXERCISE_BUILD)/train_$(EXERCISE) $(TASK) $(SEED) $(STEPS) $(EXERCISE_TRAIN_SECONDS) ) 1>&2; \
                         status=$$?; case $$status in (0|1|10) grep -q '^exercise-train $(EXERCISE): ' $$verdict || status=ended-$$status ;; esac; rm -f $$verdict; echo $$status)
  ifeq ($(EXERCISE_TRAINING),)
    $(error $(EXERCISE): lessons/exercises/$(EXERCISE).cpp does not compile (the compiler's messages above))
  endif
  ifeq ($(EXERCISE_TRAINING),unwritable)
    $(error exercise-train $(EXERCISE): cannot write a file in $(EXERCISE_BUILD) (a read-only build folder?); give a writable one with BUILD=)
  endif
  ifneq ($(filter 1 2,$(EXERCISE_TRAINING)),)
    $(error exercise-train $(EXERCISE): your line differs from the library's, or the run could not start (above))
  endif
  ifeq ($(EXERCISE_TRAINING),3)
    $(error exercise-train $(EXERCISE): a run was stopped at its time limit, as said above)
  endif
  ifneq ($(filter-out 0 1 2 3 10,$(EXERCISE_TRAINING)),)
    $(error $(shell EXERCISE_FILE_MIB=$(EXERCISE_FILE_MIB) sh lessons/exercises/checker_status.sh exercise-train-$(EXERCISE) $(EXERCISE_TRAINING) $(EXERCISE_TRAIN_HARD_SECONDS)))
  endif
endif
exercise-train:
	@:

# make test runs the self-test too (in the normal build: a sanitizer build leaves it out), so it
# needs the same programs.
ifeq ($(SANITIZE),)
test-programs: $(BUILD)/contain $(EXERCISE_PROGRAMS) $(EXERCISE_FIXTURES) $(EXERCISE_REFUSALS) $(EXERCISE_FIXTURE_TRAINERS)
endif
exercises-selftest: check-deps $(BUILD)/contain $(EXERCISE_PROGRAMS) $(EXERCISE_FIXTURES) $(EXERCISE_REFUSALS) $(EXERCISE_FIXTURE_TRAINERS)
	@sh lessons/exercises/selftest.sh '$(EXERCISE_CONTAIN_COMMAND)' $(EXERCISE_BUILD) $(EXERCISE_NAMES)

-include $(wildcard $(EXERCISE_BUILD)/*.d $(EXERCISE_BUILD)/*/*.d $(EXERCISE_BUILD)/*/*/*.d)
