# Make variables are data, never shell. Included at the top of the Makefile, before anything uses them.
# Each variable a user gives make is checked here against what it may hold, and a value that could
# run a command, name another file or reach make as syntax (a '$', ';', a backtick, '#', ':', '%',
# a space where one word is meant, a leading '-' where a path is meant) stops make at once with one
# line naming the variable and its value, before any recipe or $(shell ...) sees it:
#   RESULTS            one folder path: letters, digits and / . _ - + @, not starting with -, not /
#                      nor the source tree or a folder holding it (its files would mix with the sources)
#   SEEDS              non-negative integers separated by spaces, no leading zeros    JOBS    1 to 4096
#   RUN_FLAGS          flags and values: letters, digits and - _ . , : = + (experiment/results_files.hpp
#                      compares them word for word); what they mean is train_position's to say
#   SLURM_FLAGS        sbatch flags: letters, digits and - _ . , : = + / @
#   MY_SCHEMES         position schemes of your own (mine, rope:500): letters, digits and . : per word
#   KERNELS            plain, fast or both                                 SCHEDULER  slurm or empty
#   EXERCISE           one exercise's name (letters, digits, _)            TASK       lag or seen
#   SEED a whole number; STEPS 1 to 100000; EXERCISE_SECONDS, EXERCISE_TRAIN_SECONDS, EXERCISE_FILE_MIB, FUZZ_SECONDS, FUZZ_MAX_LEN: 1 to 999999999
#   EXTENSION_LENGTHS  whole numbers separated by spaces, no leading zeros BUILD      as RESULTS
#   EXERCISE_CONTAIN   subreaper or empty                                  EXERCISE_BUILD as RESULTS
#   BENCH_SIZES        bench_step's size flags and values: as RUN_FLAGS     WEB_PORT   0 to 65535 (0: a free port)
#   RELEASE            trixie or bookworm                                  BENCH_THREADS 1 to 64
# TAGS is free text for the test program (Catch's test specs): its words reach the program quoted, one
# argument each, never read by the shell (at the end of this file). A variable is checked when it
# is given on make's command line, whatever the goal (make passes it on to every sub-make and recipe),
# and when it comes from the environment and a goal that uses it is made.
# Leaves out CXX, FUZZ_CXX, OPTIMISE and NATIVE_ARCH (a compiler and its flags: commands by nature),
# and make deps' DEB_PACKAGES and APT_FLAGS (the Makefile's set-up).

mv_empty :=
mv_space := $(mv_empty) $(mv_empty)
mv_comma := ,
mv_digits  := 0 1 2 3 4 5 6 7 8 9
mv_letters := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z
mv_path_characters := $(mv_letters) $(mv_digits) / . _ - + @
mv_flag_characters := $(mv_letters) $(mv_digits) - _ . $(mv_comma) : = +

mv_tab := $(mv_empty)	$(mv_empty)
define mv_newline


endef
# mv_left TEXT,CHARACTERS: what is left of TEXT without any of the CHARACTERS (a list of single
# characters), with each space, tab and newline left as '?' (make would not see a blank as text);
# empty when TEXT holds nothing else.
mv_left = $(call mv_remove,$(subst $(mv_space),?,$(subst $(mv_tab),?,$(subst $(mv_newline),?,$(1)))),$(2))
mv_remove = $(if $(2),$(call mv_remove,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
# mv_quote TEXT: TEXT as one word for sh, read literally ('...' with each ' written as '\'').
mv_quote = '$(subst ','\'',$(1))'
# mv_shown TEXT: TEXT on one line, each newline written \n (a refusal is one line).
mv_shown = $(subst $(mv_newline),\n,$(1))
# mv_words_left TEXT,CHARACTERS: the same for a list of words, single spaces between them allowed.
mv_words_left = $(call mv_left,$(subst $(mv_space),,$(1)),$(2))

# The checkout's own path reaches the compiler's flags (-DWAI_GOLDEN_DIR='"$(CURDIR)/..."') and the
# shell's command lines, where a quote, a blank or a newline in it breaks them (make lessons and make
# test failed on a missing file or a shell syntax error): refused at once, naming the character.
mv_path_breakers := ' " ` $$ \ ; & | < > ( ) * ? [ ] { } \# % !
mv_path_breaker = $(or $(if $(findstring $(mv_newline),$(1)),a newline),$(if $(findstring $(mv_tab),$(1)),a tab),\
  $(if $(findstring $(mv_space),$(1)),a space),$(if $(call mv_path_breaker_character,$(1)),the character $(call mv_path_breaker_character,$(1))))
mv_path_breaker_character = $(firstword $(foreach c,$(mv_path_breakers),$(if $(findstring $(c),$(1)),$(c))))
ifneq ($(call mv_path_breaker,$(CURDIR)),)
  $(error the checkout's path holds $(call mv_path_breaker,$(CURDIR)), which the build's command lines cannot take (its path: $(call mv_shown,$(CURDIR))); move or rename the checkout to a path without quotes, blanks, newlines or any of $(mv_path_breakers))
endif

# The goals that use each variable (besides every goal, when it is given on the command line).
mv_experiment_goals := experiment experiment-locked experiment-runs experiment-jobs experiment-collect experiment-slurm \
                       experiment-extension extension-locked extension-runs plots
mv_goals_RESULTS     := $(mv_experiment_goals)
mv_goals_SEEDS       := $(mv_experiment_goals)
mv_goals_JOBS        := $(mv_experiment_goals)
mv_goals_RUN_FLAGS   := $(mv_experiment_goals)
mv_goals_MY_SCHEMES  := $(mv_experiment_goals)
mv_goals_SLURM_FLAGS := experiment experiment-locked experiment-slurm
mv_goals_SCHEDULER   := experiment experiment-locked
mv_goals_EXTENSION_LENGTHS := experiment-extension extension-locked extension-runs plots
mv_goals_KERNELS     := bench bench-torch
mv_goals_BENCH_SIZES := bench bench-torch
mv_goals_BENCH_THREADS := bench-torch
mv_goals_WEB_PORT    := web-serve
mv_goals_RELEASE     := test-debian
mv_goals_TAGS        := test
mv_goals_SANITIZE    := all test
mv_goals_EXERCISE    := exercise exercise-train
mv_goals_TASK        := exercise-train
mv_goals_SEED        := exercise-train
mv_goals_STEPS       := exercise-train
mv_goals_EXERCISE_SECONDS       := exercise exercises exercises-selftest
mv_goals_EXERCISE_TRAIN_SECONDS := exercise-train
mv_goals_EXERCISE_FILE_MIB      := exercise exercises exercise-train
mv_goals_EXERCISE_CONTAIN       := exercise exercises exercise-train exercises-selftest test
mv_goals_EXERCISE_BUILD         :=
mv_goals_FUZZ_SECONDS := fuzz
mv_goals_FUZZ_MAX_LEN := fuzz
mv_goals_BUILD       :=
mv_goals_WEB_BUILD   :=
mv_goals_LESSON_PROGRAMS :=
MAKE_VARIABLES := RESULTS SEEDS JOBS RUN_FLAGS MY_SCHEMES SLURM_FLAGS SCHEDULER EXTENSION_LENGTHS KERNELS TAGS SANITIZE EXERCISE \
                  TASK SEED STEPS EXERCISE_SECONDS EXERCISE_TRAIN_SECONDS EXERCISE_FILE_MIB EXERCISE_CONTAIN EXERCISE_BUILD \
                  FUZZ_SECONDS FUZZ_MAX_LEN BUILD BENCH_SIZES BENCH_THREADS WEB_PORT RELEASE

# A variable given on the top make's command line must be one of these (or one of the compiler's and
# set-up's below, or LESSON_PROGRAMS, LESSONS_BOARD_MAKE and WEB_BUILD, which the tests give): a typo such as SEDS="0 1"
# would otherwise be ignored without a word (the run made with the default seeds), and a name the
# Makefile uses inside (EXPERIMENT_SCHEMES, a list a recipe's shell reads) would reach the shell
# unchecked. Sub-makes, given the Makefile's own names by the Makefile, are not checked again.
MAKE_VARIABLES += LESSON_PROGRAMS LESSONS_BOARD_MAKE WEB_BUILD
mv_unchecked_variables := CXX FUZZ_CXX OPTIMISE NATIVE_ARCH DEB_PACKAGES APT_FLAGS ORDERS FULL KEEP
ifeq ($(MAKELEVEL),0)
  mv_unknown := $(filter-out $(MAKE_VARIABLES) $(mv_unchecked_variables),$(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))
  ifneq ($(mv_unknown),)
    $(error $(firstword $(mv_unknown)) is not a variable this Makefile takes (a typo?); the variables it takes: $(sort $(MAKE_VARIABLES) $(mv_unchecked_variables)))
  endif
endif

# mv_checked VAR: non-empty when VAR is to be checked (given on the command line, or taken from the
# environment by a goal that uses it).
mv_origin  = $(firstword $(origin $(1)))
mv_checked = $(or $(filter command override,$(call mv_origin,$(1))),$(if $(filter environment,$(call mv_origin,$(1))),$(filter $(mv_goals_$(1)),$(or $(MAKECMDGOALS),all))))

# First the one character make itself acts on: a '$' is refused before the value is ever expanded
# (a command-line value is expanded each time it is used, so "$(shell ...)" would run).
$(foreach v,$(MAKE_VARIABLES),$(if $(call mv_checked,$(v)),$(if $(findstring $$,$(value $(v))),\
  $(error $(v) may not hold '$$' (make and the shell would run what follows it), got '$(call mv_shown,$(value $(v)))'))))

# What each variable may hold: mv_problem_VAR is non-empty when its value is not that, mv_expect_VAR
# says what it must be. Both are expanded only for a variable that is checked, after the '$' test.
# (at most 9 digits: every program these reach reads an int, where a longer one would wrap round)
mv_not_whole_number = $(or $(filter-out 1,$(words $(1))),$(call mv_left,$(1),$(mv_digits)),$(if $(subst 0,,$(1)),,zero),\
  $(shell case '$(1)' in (??????????*) echo too long;; esac))
# (the last two through the path with its links resolved, realpath -m: a link to the checkout is the checkout;
# reached only once the characters passed, so the shell sees none it would act on)
mv_not_path = $(or $(filter-out 1,$(words $(1))),$(call mv_left,$(1),$(mv_path_characters)),$(filter -%,$(1)),\
  $(call mv_not_path_place,$(shell realpath -m -- '$(1)'),$(shell realpath -m -- '$(CURDIR)')))
mv_not_path_place = $(or $(filter /,$(1)),$(filter $(1) $(1)/%,$(2)),$(shell [ -e '$(1)' ] && [ ! -d '$(1)' ] && echo not a folder))
mv_not_numbers = $(or $(if $(strip $(1)),,empty),$(call mv_words_left,$(1),$(mv_digits)))
mv_path_expected = one folder path with no space: letters, digits and / . _ - + @, not starting with -, not / nor the source tree or a folder that holds it, nor a file

mv_problem_RESULTS = $(call mv_not_path,$(RESULTS))
mv_expect_RESULTS  = $(mv_path_expected)
mv_problem_BUILD   = $(call mv_not_path,$(BUILD))
mv_expect_BUILD    = $(mv_path_expected)
mv_problem_EXERCISE_BUILD = $(call mv_not_path,$(EXERCISE_BUILD))
mv_expect_EXERCISE_BUILD  = $(mv_path_expected)
mv_problem_EXERCISE_CONTAIN = $(filter-out subreaper,$(EXERCISE_CONTAIN))
mv_expect_EXERCISE_CONTAIN  = subreaper (contain's second mode even where its namespaces are allowed), or empty
mv_problem_SEEDS   = $(or $(call mv_not_numbers,$(SEEDS)),$(filter-out 0,$(filter 0%,$(SEEDS))))
mv_expect_SEEDS    = one or more non-negative integers separated by spaces, without leading zeros (SEEDS="0 1")
# (make hands out its -j tokens through a pipe, which holds 65536: past that make waits for ever)
mv_problem_JOBS    = $(or $(call mv_not_whole_number,$(JOBS)),$(shell [ '$(JOBS)' -le 4096 ] 2>/dev/null || echo too many))
mv_expect_JOBS     = a whole number from 1 to 4096
mv_problem_RUN_FLAGS = $(call mv_words_left,$(RUN_FLAGS),$(mv_flag_characters))
mv_expect_RUN_FLAGS  = flags and values made of letters, digits and - _ . , : = + separated by spaces (RUN_FLAGS may hold only these)
mv_problem_MY_SCHEMES = $(call mv_words_left,$(MY_SCHEMES),$(mv_letters) $(mv_digits) . :)
mv_expect_MY_SCHEMES  = position schemes train_position takes (mine, rope:500), letters, digits and . : separated by spaces
mv_problem_SLURM_FLAGS = $(call mv_words_left,$(SLURM_FLAGS),$(mv_flag_characters) / @)
mv_expect_SLURM_FLAGS  = sbatch flags made of letters, digits and - _ . , : = + / @ separated by spaces
mv_problem_EXTENSION_LENGTHS = $(or $(call mv_not_numbers,$(EXTENSION_LENGTHS)),$(filter 0%,$(EXTENSION_LENGTHS)))
mv_expect_EXTENSION_LENGTHS  = whole numbers separated by spaces, without leading zeros
mv_problem_WEB_BUILD = $(call mv_not_path,$(WEB_BUILD))
mv_expect_WEB_BUILD  = $(mv_path_expected)
mv_problem_LESSON_PROGRAMS = $(call mv_words_left,$(LESSON_PROGRAMS),$(mv_path_characters))
mv_expect_LESSON_PROGRAMS  = lesson programs' paths made of letters, digits and / . _ - + @ separated by spaces
mv_problem_BENCH_SIZES = $(call mv_words_left,$(BENCH_SIZES),$(mv_flag_characters))
mv_expect_BENCH_SIZES  = bench_step's flags and values (--dim 256 --layers 4), letters, digits and - _ . , : = + separated by spaces
# (digits alone reach the shell's range test, as web_serve.mjs takes them: at most 5, at most 65535)
mv_problem_WEB_PORT = $(or $(filter-out 1,$(words $(WEB_PORT))),$(call mv_left,$(WEB_PORT),$(mv_digits)),\
  $(shell case '$(WEB_PORT)' in (??????*) echo out of range;; (*) [ '$(WEB_PORT)' -le 65535 ] || echo out of range;; esac))
mv_expect_WEB_PORT  = a port number from 0 to 65535 (0: a free one)
mv_problem_RELEASE = $(if $(filter 1,$(words $(RELEASE))),$(filter-out trixie bookworm,$(RELEASE)),several)
mv_expect_RELEASE  = trixie (Debian 13) or bookworm (Debian 12)
mv_problem_SCHEDULER = $(filter-out slurm,$(SCHEDULER))
mv_expect_SCHEDULER  = slurm, or empty for this machine alone
mv_problem_KERNELS = $(if $(filter 1,$(words $(KERNELS))),$(filter-out plain fast both,$(KERNELS)),several)
mv_expect_KERNELS  = plain, fast or both
mv_problem_EXERCISE = $(if $(filter-out 0 1,$(words $(EXERCISE))),several,$(call mv_left,$(EXERCISE),$(mv_letters) $(mv_digits) _))
mv_expect_EXERCISE  = one exercise's name (make exercises lists them)
mv_problem_TASK = $(if $(filter 1,$(words $(TASK))),$(filter-out lag seen,$(TASK)),several)
mv_expect_TASK  = lag or seen
mv_problem_SEED = $(or $(filter-out 1,$(words $(SEED))),$(call mv_left,$(SEED),$(mv_digits)))
mv_expect_SEED  = a non-negative integer
$(foreach v,STEPS EXERCISE_SECONDS EXERCISE_TRAIN_SECONDS EXERCISE_FILE_MIB FUZZ_SECONDS FUZZ_MAX_LEN,\
  $(eval mv_problem_$(v) = $$(call mv_not_whole_number,$$($(v))))$(eval mv_expect_$(v) = a whole number from 1 to 999999999))
# STEPS goes to the training programs, which take at most 100000 (tasks/run_checks.hpp's max_steps).
mv_problem_STEPS = $(or $(call mv_not_whole_number,$(STEPS)),$(shell [ '$(STEPS)' -le 100000 ] || echo too large))
mv_expect_STEPS  = a whole number from 1 to 100000 (the most a run takes)
mv_problem_BENCH_THREADS = $(or $(call mv_not_whole_number,$(BENCH_THREADS)),$(shell [ '$(BENCH_THREADS)' -le 64 ] || echo too many))
mv_expect_BENCH_THREADS  = a thread count from 1 to 64

$(foreach v,$(MAKE_VARIABLES),$(if $(call mv_checked,$(v)),$(if $(strip $(mv_problem_$(v))),\
  $(error $(v) must be $(mv_expect_$(v)), got '$(call mv_shown,$($(v)))'))))

# TAGS is free text for the test program (Catch's test specs, '[cli]', '~[slow]'): each of its words
# reaches the program quoted, one argument read literally, never by the shell (no glob, no command).
ifneq ($(call mv_checked,TAGS),)
  ifneq ($(strip $(TAGS)),)
    override TAGS := $(foreach w,$(TAGS),$(call mv_quote,$(w)))
  endif
endif
