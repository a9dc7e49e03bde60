# Lessons: lessons/NN_name.cpp, one program each, built into build/lessons/NN_name.
#   make lessons       build them all, on every core
#   make lessons-run   run them in order, lesson 06 once its exercise is solved (below); stops at the
#                      first one whose claims do not hold
#   make exercises     build the learner's exercise files and check them (lessons/exercises/)
LESSON_SOURCES  := $(sort $(wildcard lessons/[0-9][0-9]_*.cpp))
LESSON_PROGRAMS := $(LESSON_SOURCES:lessons/%.cpp=$(BUILD)/lessons/%)

.PHONY: lessons lessons-run lesson-programs
# Keep the lessons' object files: make would otherwise delete them as intermediates after linking.
.SECONDARY: $(LESSON_PROGRAMS:%=%.o)

# Built on every core (PARALLEL_MAKE, Makefile): the lessons and the checked library they link are
# some 80 files, each compiled on its own.
lessons: check-deps
	+@$(PARALLEL_MAKE) lesson-programs
lesson-programs: $(LESSON_PROGRAMS)

# Lessons are learner builds: checked indexing, linked with the checked library (Makefile).
$(BUILD)/lessons/%.o: CXXFLAGS += $(CHECKED_FLAGS)
$(BUILD)/lessons/%: $(BUILD)/lessons/%.o $(CHECKED_LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Each lesson is announced with the exercises tied to it (lessons/exercises/exercises.list), so a
# learner meets an exercise before the lesson that works it out. Lesson 06 works out the exercise
# rope_rotation: it runs here once that exercise is solved, by the board's own check (board.sh on that
# one exercise); until then one line says where the exercise stands and how to run the lesson after.
# LESSONS_BOARD_MAKE is the make the board builds the checker with (the tests give `true`).
LESSON_AFTER_EXERCISE := 06_rope_exercise
ITS_EXERCISE          := rope_rotation
LESSONS_BOARD_MAKE     = $(MAKE) EXERCISE_BUILD=$(EXERCISE_BUILD)
lessons-run: lessons $(BUILD)/contain
	@set -e; for program in $(LESSON_PROGRAMS); do \
	  lesson=$$(basename $$program); \
	  exercises=$$(sed -n "s/^\([a-z_0-9]*\) | $$lesson |.*/lessons\/exercises\/\1.cpp/p" lessons/exercises/exercises.list | tr '\n' ' '); \
	  if [ "$$lesson" = $(LESSON_AFTER_EXERCISE) ]; then \
	    board=$$(EXERCISE_SECONDS=$(EXERCISE_SECONDS) EXERCISE_FILE_MIB=$(EXERCISE_FILE_MIB) sh lessons/exercises/board.sh \
	               "$(LESSONS_BOARD_MAKE)" '$(EXERCISE_CONTAIN_COMMAND)' $(EXERCISE_BUILD) $(ITS_EXERCISE) 2>&1 | sed -n 's/^  \[/[/p') || true; \
	    case "$$board" in \
	      "[solved]  $(ITS_EXERCISE)"*) \
	        echo "==== $$lesson   (the worked solution of lessons/exercises/$(ITS_EXERCISE).cpp, which you have solved)"; \
	        $$program ;; \
	      *) echo "==== $$lesson: not run here: it is the worked solution of the exercise lessons/exercises/$(ITS_EXERCISE).cpp."; \
	        echo "     Your exercise now: $${board:-(the board gave no line)}"; \
	        echo "     Solve that first (make exercise EXERCISE=$(ITS_EXERCISE) says \"solved\"), then run: $$program (or make lessons-run again)" ;; \
	    esac; \
	    continue; \
	  fi; \
	  echo "==== $$lesson$${exercises:+   (its exercises: $$exercises- make exercises shows where you stand)}"; \
	  $$program; done

-include lessons/exercises/exercises.mk

# tests/test_lessons.cpp runs every lesson: the test program needs them built, and where they are.
$(TEST_BINARY): | $(LESSON_PROGRAMS)
$(BUILD)/tests/test_lessons.o: CXXFLAGS += -DWAI_LESSONS_DIR='"$(abspath $(BUILD)/lessons)"'

# Lesson 05 reads the chapter's q and k from lessons/data/ in the source tree, wherever it is run from.
$(BUILD)/lessons/05_rope.o: CXXFLAGS += -DWAI_LESSONS_DATA_DIR='"$(CURDIR)/lessons/data"'
$(BUILD)/lessons/05_rope.o: lessons/lessons.mk
