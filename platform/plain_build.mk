# make plain-build: the proof that the syllabus folders are the plain reference, whole, as llm.c keeps
# its reference file apart from its fast ones (included by the Makefile; make test runs it). With the
# fast tree (fast/) left out, and startup/kernels_choice_plain.cpp in place of startup/kernels_choice.cpp:
#   - no object of tensor/ autograd/ nn/ positional/ tasks/ files/ or the lessons reads a header of fast/
#     (their .d files, written by the compiler, name every header each one read);
#   - train_position and the lessons link in build/plain/ from objects without fast/'s: a call into the
#     fast tree from anything they reach would be an undefined symbol;
#   - there, train_position --kernels plain gives the full build's line for three schemes, --kernels
#     fast is refused in one line, and lessons 05 and 09 print what the full build's print.
# Leaves out compiling anything again: the objects are the full build's, with the same flags.
PLAIN_BUILD       := $(BUILD)/plain
PLAIN_LEFT_OUT    := $(filter fast/%.cpp,$(LIB_SOURCES)) startup/kernels_choice.cpp
PLAIN_OBJECTS      = $(filter-out $(PLAIN_LEFT_OUT:%.cpp=$(1)/%.o),$(LIB_SOURCES:%.cpp=$(1)/%.o)) $(1)/startup/kernels_choice_plain.o
PLAIN_SYLLABUS    := tensor autograd nn positional tasks files
PLAIN_LESSONS     := 05_rope 09_log_scaling
PLAIN_RUNS        := lag:rope seen:alibi lag:learned
PLAIN_RUN_FLAGS   := --steps 20 --batch 8 --eval-seqs 8 --dim 16 --mlp 32 --test-lens 32,64 --quiet

.PHONY: plain-build
$(PLAIN_BUILD)/libwhereami.a: $(call PLAIN_OBJECTS,$(BUILD))
	@mkdir -p $(dir $@) && rm -f $@
	ar rcs $@ $^
$(PLAIN_BUILD)/checked/libwhereami.a: $(call PLAIN_OBJECTS,$(CHECKED_BUILD))
	@mkdir -p $(dir $@) && rm -f $@
	ar rcs $@ $^
$(PLAIN_BUILD)/train_position: $(BUILD)/programs/train_position.o $(PLAIN_BUILD)/libwhereami.a
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)
$(PLAIN_BUILD)/lessons/%: $(BUILD)/lessons/%.o $(PLAIN_BUILD)/checked/libwhereami.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

plain-build: $(PLAIN_BUILD)/train_position $(PLAIN_LESSONS:%=$(PLAIN_BUILD)/lessons/%) $(BUILD)/train_position \
             $(PLAIN_LESSONS:%=$(BUILD)/lessons/%)
	@readers=$$(grep -l '^ *fast/\|[ /]fast/[a-z_]*\.hpp' $(foreach f,$(PLAIN_SYLLABUS),$(BUILD)/$(f)/*.d) \
	    $(foreach l,$(LESSON_SOURCES:%.cpp=%),$(wildcard $(BUILD)/$(l).d)) 2>/dev/null); \
	  [ -z "$$readers" ] || { echo "plain-build: these objects read a header of the fast tree: $$readers" >&2; exit 1; }
	@for run in $(PLAIN_RUNS); do \
	  plain=$$($(PLAIN_BUILD)/train_position $${run%%:*} $${run#*:} 0 --kernels plain $(PLAIN_RUN_FLAGS)) || exit 1; \
	  full=$$($(BUILD)/train_position $${run%%:*} $${run#*:} 0 --kernels plain $(PLAIN_RUN_FLAGS)) || exit 1; \
	  [ "$$plain" = "$$full" ] || { printf 'plain-build: train_position %s differs:\n  %s\n  %s\n' "$$run" "$$plain" "$$full" >&2; exit 1; }; done
	@refusal=$$($(PLAIN_BUILD)/train_position lag rope 0 --kernels fast 2>&1 >/dev/null); status=$$?; \
	  [ $$status = 2 ] && [ "$$(printf '%s\n' "$$refusal" | grep -c .)" = 1 ] && printf '%s\n' "$$refusal" | grep -q 'leaves out the fast tree' || \
	  { echo "plain-build: --kernels fast was not refused in one line (exit $$status): $$refusal" >&2; exit 1; }
	@for lesson in $(PLAIN_LESSONS); do \
	  $(PLAIN_BUILD)/lessons/$$lesson > $(PLAIN_BUILD)/lessons/$$lesson.out 2>&1 || { cat $(PLAIN_BUILD)/lessons/$$lesson.out; exit 1; }; \
	  $(BUILD)/lessons/$$lesson 2>&1 | cmp -s - $(PLAIN_BUILD)/lessons/$$lesson.out || \
	    { echo "plain-build: lesson $$lesson prints otherwise without the fast tree" >&2; exit 1; }; done
	@echo "plain-build: without fast/ ($(words $(PLAIN_LEFT_OUT)) files left out), train_position and lessons $(PLAIN_LESSONS) link and give the full build's lines; no syllabus object reads fast/"
