# Exercises: lessons/exercises/NAME.cpp is the learner's file; it is linked with its checker
# check_NAME.cpp and the library into build/exercises/NAME, which says where the answer stands.
#   make exercises           build the exercise and check it
#   make exercises-selftest  the checker against the untouched scaffold and the files in solutions/
# Exit status of `make exercises`: 0 for "solved" and for "not solved yet" (an untouched scaffold is
# not a broken build), non-zero for a filled-in answer that is wrong, or a file that does not compile.
EXERCISE_BUILD    := $(BUILD)/exercises
EXERCISE_CHECKER  := $(EXERCISE_BUILD)/check_rope_exercise.o
EXERCISE_PROGRAM  := $(EXERCISE_BUILD)/rope_exercise
EXERCISE_SOLUTIONS := $(addprefix $(EXERCISE_BUILD)/solutions/rope_exercise_,right wrong_rotation wrong_score)

.PHONY: exercises exercises-selftest

exercises: check-deps $(EXERCISE_PROGRAM)
	$(EXERCISE_PROGRAM)

$(EXERCISE_BUILD)/%.o: lessons/exercises/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(EXERCISE_PROGRAM): $(EXERCISE_BUILD)/rope_exercise.o $(EXERCISE_CHECKER) $(LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The same checker, with a solution file in place of the learner's.
$(EXERCISE_SOLUTIONS): $(EXERCISE_BUILD)/solutions/%: $(EXERCISE_BUILD)/solutions/%.o $(EXERCISE_CHECKER) $(LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Expects the scaffold as shipped: once a learner has filled it in, its "not solved yet" check fails.
exercises-selftest: check-deps $(EXERCISE_PROGRAM) $(EXERCISE_SOLUTIONS)
	@sh lessons/exercises/selftest.sh $(EXERCISE_PROGRAM) $(EXERCISE_SOLUTIONS)

-include $(wildcard $(EXERCISE_BUILD)/*.d $(EXERCISE_BUILD)/solutions/*.d)
