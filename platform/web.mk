# whereami as WebAssembly, under node and in the browser (included by the Makefile):
#   make web        the library (tensor/ autograd/ nn/ positional/ tasks/ and the fast tree fast/, with
#                   files/ and experiment/), train_position and every lesson, built by Emscripten's em++
#                   into build/web/: NAME.js and NAME.wasm each, run from any folder as
#                   node build/web/train_position.js lag rope 0 --steps 100
#                   and the page (web/) beside them: build/web/index.html and the files it loads
#   make web-serve  serves build/web/ on http://127.0.0.1:WEB_PORT/ (platform/web_serve.mjs)
#   make test-web   the page's server kept to its folder (tests/web/serve_test.mjs), the exercise's
#                   compiler driver writing what it compiled (tests/web/wasi_cc_test.mjs), those programs
#                   under node held to the native ones (tests/web_agreement.sh), then
#                   the page in headless Chromium (tests/web/page_test.mjs) and its exercise
#                   (tests/web/exercise_test.mjs); not part of make test
#   make bench-web  a training step in headless Chromium against the native one (bench/web_bench.mjs)
# The same sources as the native build but for the files only a native process has, which the web
# build leaves out (WEB_NATIVE_ONLY), and the *_web.cpp files it has in their place: matrix products
# through tensor/gemm_portable.cpp's blocked loop instead of OpenBLAS, the start-up of
# startup/startup_web.cpp, and the OpenMP calls answered for one thread (startup/openmp_web.cpp).
# Compiled with -O2 -msimd128 (WebAssembly's 128-bit vectors, which the compiler finds by itself)
# and -fopenmp-simd: the `#pragma omp simd` hints count, the parallel regions run on the one thread.
# Debian 12's Emscripten (3.1.6) under node 20 needs:
#   - NODE_PATH=/usr/share/nodejs for each em++ that links: its JavaScript minifier needs Debian's
#     acorn (node-acorn) and does not look there itself;
#   - -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0: its glue would load the .wasm with fetch, which
#     node 20 refuses for a file path; compiled at once, it is read from beside the .js, from any folder;
#   - -sEXIT_RUNTIME=1: without it a program's last output may stay unflushed and its atexit
#     handlers (startup/output_check.hpp) never run;
#   - -fexceptions: the C++ exceptions the programs catch (bad arguments, bad files) are caught, with
#     the exception-enabled libc++ it ships prebuilt;
#   - -sNODERAWFS=1: files are the machine's own (--save, --load, lesson 05's data), read and written
#     through node, and -sFORCE_FILESYSTEM=1 gives that to every program, so that standard output is
#     file descriptor 1 itself (written as written, a failed write seen) even in a program that opens
#     no file; -sALLOW_MEMORY_GROWTH=1 up to 4 GiB for the largest runs. NODERAWFS calls
#     standard input, output and error terminals whatever they are: startup/startup_web.js (--pre-js)
#     asks node.
# The page's two modules are built for the browser instead (-sENVIRONMENT=web,worker, -sMODULARIZE:
# the page's scripts create them), from the same objects; see the page's part below.
# Leaves out threads (WebAssembly threads need SharedArrayBuffer, so cross-origin-isolation headers
# from the host, and a worker per thread), collect_results and collect_extension, the exercises
# (but the page's, rope_rotation, built by its own compiler: platform/exercise_web.mk), and libc++'s
# own bounds checks (the lessons' checked indexing, WAI_CHECKED_INDEXING, is kept).
.PHONY: web web-page web-dist test-web check-web-deps check-web-test-deps web-serve bench-web

WEB_BUILD     := build/web
EMXX          := em++
EMAR          := emar
WEB_NODE      := node
WEB_NODE_PATH := /usr/share/nodejs
WEB_PACKAGES  := emscripten
WEB_OPTIMISE  := -O2 -msimd128
# Header-only libraries come from Debian's /usr/include, which em++ does not search (its C library
# is its own): each is linked into $(WEB_BUILD)/include, the one folder of them it is told about.
WEB_HEADER_LIBRARIES := /usr/include/nlohmann
WEB_INCLUDE   := $(WEB_BUILD)/include
WEB_CXXFLAGS  := -std=c++20 $(WEB_OPTIMISE) -fno-math-errno -fopenmp-simd -fexceptions -Wall -Wextra -I. -isystem startup/web_include -isystem $(WEB_INCLUDE) -MMD -MP
WEB_PRE_JS    := startup/startup_web.js
WEB_LDFLAGS   := $(WEB_OPTIMISE) -fexceptions -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sEXIT_RUNTIME=1 \
                 -sNODERAWFS=1 -sFORCE_FILESYSTEM=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB --pre-js $(WEB_PRE_JS)
WEB_CHECKED_FLAGS := -DWAI_CHECKED_INDEXING

# What only a native process has: OpenBLAS's sgemm, and the start-up around OpenBLAS and OpenMP.
WEB_NATIVE_ONLY    := tensor/gemm_openblas.cpp startup/openblas_startup.cpp startup/startup_checks.cpp startup/thread_policy.cpp
WEB_ONLY_SOURCES   := $(wildcard tensor/*_web.cpp startup/*_web.cpp)
WEB_LIB_SOURCES    := $(filter-out $(WEB_NATIVE_ONLY),$(LIB_SOURCES)) $(WEB_ONLY_SOURCES)
WEB_LIBRARY        := $(WEB_BUILD)/libwhereami.a
WEB_CHECKED_LIBRARY := $(WEB_BUILD)/checked/libwhereami.a
WEB_LESSONS        := $(LESSON_SOURCES:lessons/%.cpp=$(WEB_BUILD)/lessons/%.js)
WEB_PROGRAMS       := $(WEB_BUILD)/train_position.js $(WEB_LESSONS)

# As the native build: objects depend on the flags they were built with (rewritten only on a change).
WEB_FLAGS_FILE := $(WEB_BUILD)/compile_flags.txt
WEB_FLAGS_TEXT := $(EMXX) $(WEB_CXXFLAGS) | checked: $(WEB_CHECKED_FLAGS) | fast_math: $(FAST_MATH_OBJECTS) -ffast-math
WEB_LINK_FLAGS_FILE := $(WEB_BUILD)/link_flags.txt
WEB_LINK_FLAGS_TEXT := $(EMXX) $(WEB_LDFLAGS)
ifneq ($(filter web web-page web-dist web-serve test-web test-web-long bench-web $(WEB_BUILD)/%,$(MAKECMDGOALS)),)
  ifneq ($(shell cat $(WEB_FLAGS_FILE) 2>/dev/null),$(WEB_FLAGS_TEXT))
    $(shell mkdir -p $(WEB_BUILD) && printf '%s\n' '$(WEB_FLAGS_TEXT)' > $(WEB_FLAGS_FILE))
  endif
  ifneq ($(shell cat $(WEB_LINK_FLAGS_FILE) 2>/dev/null),$(WEB_LINK_FLAGS_TEXT))
    $(shell mkdir -p $(WEB_BUILD) && printf '%s\n' '$(WEB_LINK_FLAGS_TEXT)' > $(WEB_LINK_FLAGS_FILE))
  endif
endif

# The programs, and the page (below) with the folder to publish.
web: check-web-deps $(WEB_LIBRARY) $(WEB_PROGRAMS) web-page web-dist

# Emscripten from Debian (it brings node-acorn and binaryen), installed on first use as the
# set-up installs the rest (platform/debian.mk's install-packages: as root, or through sudo; a user
# with neither is told the apt-get line to run).
check-web-deps:
	@missing='$(call missing_packages,$(WEB_PACKAGES))'; \
	if [ -n "$$missing" ] && ! command -v $(EMXX) >/dev/null; then \
	  $(MAKE) --no-print-directory -f platform/debian.mk install-packages PACKAGES="$$missing" || exit 1; fi
	@command -v $(WEB_NODE) >/dev/null || { echo "web: missing node, which runs Emscripten and the programs (Debian package nodejs)" >&2; exit 1; }

# Every object waits for it (order-only), and it waits for Emscripten's set-up: with make -j, objects
# were compiled beside check-web-deps, before it had installed Emscripten.
$(WEB_INCLUDE)/.linked: | check-web-deps
	@mkdir -p $(WEB_INCLUDE)
	@for library in $(WEB_HEADER_LIBRARIES); do \
	  test -d $$library || { echo "web: missing $$library (run 'make deps')" >&2; exit 1; }; \
	  ln -sfn $$library $(WEB_INCLUDE)/$$(basename $$library); done
	@touch $@

$(WEB_BUILD)/%.o: %.cpp $(WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	@mkdir -p $(dir $@)
	$(EMXX) $(WEB_CXXFLAGS) -c $< -o $@
$(WEB_BUILD)/checked/%.o: %.cpp $(WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	@mkdir -p $(dir $@)
	$(EMXX) $(WEB_CXXFLAGS) $(WEB_CHECKED_FLAGS) -c $< -o $@
# As natively, -ffast-math for the two files of transcendental loops; their `omp simd` loops of exp
# and erf stay scalar here (WebAssembly has no vector versions of them), which clang would warn of.
$(addprefix $(WEB_BUILD)/,$(FAST_MATH_OBJECTS)) $(addprefix $(WEB_BUILD)/checked/,$(FAST_MATH_OBJECTS)): WEB_CXXFLAGS += -ffast-math -Wno-pass-failed

$(WEB_LIBRARY): $(WEB_LIB_SOURCES:%.cpp=$(WEB_BUILD)/%.o)
	@rm -f $@
	$(EMAR) rcs $@ $^
$(WEB_CHECKED_LIBRARY): $(WEB_LIB_SOURCES:%.cpp=$(WEB_BUILD)/checked/%.o)
	@rm -f $@
	$(EMAR) rcs $@ $^

# Each program is NAME.js, the glue node runs, and NAME.wasm beside it.
$(WEB_BUILD)/train_position.js: $(WEB_BUILD)/programs/train_position.o $(WEB_LIBRARY) $(WEB_PRE_JS) $(WEB_LINK_FLAGS_FILE)
	NODE_PATH=$(WEB_NODE_PATH) $(EMXX) $(WEB_LDFLAGS) $(filter %.o %.a,$^) -o $@

# The lessons, learner builds as natively: checked indexing, the checked library.
.SECONDARY: $(LESSON_SOURCES:lessons/%.cpp=$(WEB_BUILD)/lessons/%.o)
$(WEB_BUILD)/lessons/%.o: WEB_CXXFLAGS += $(WEB_CHECKED_FLAGS)
$(WEB_BUILD)/lessons/05_rope.o: WEB_CXXFLAGS += -DWAI_LESSONS_DATA_DIR='"$(CURDIR)/lessons/data"'
$(WEB_BUILD)/lessons/%.js: $(WEB_BUILD)/lessons/%.o $(WEB_CHECKED_LIBRARY) $(WEB_PRE_JS) $(WEB_LINK_FLAGS_FILE)
	NODE_PATH=$(WEB_NODE_PATH) $(EMXX) $(WEB_LDFLAGS) $(filter %.o %.a,$^) -o $@

# The page (web/): the engine for the page's widget, training and experiment (web/page_widget.cpp,
# page_training.cpp, page_experiment.cpp; bound with embind in web/page_api.cpp) and the lessons
# (web/lessons_page.cpp: every lesson's main, renamed lesson_NN_name, picked by name), each a module
# the page's scripts create (-sMODULARIZE) in the page or in a Web Worker,
# with the few files they read embedded in the .wasm (the chapter's q and k, the chapter's table).
# Lesson 06, the exercise's worked solution, is in the list the page shows once the exercise is solved.
# Next to them the page's own files (web/*.html, *.css, *.js), lessons.json (each lesson's name and
# the first sentence of its header) and the lessons' sources, which the page links to.
WEB_PAGE_LESSONS   := $(LESSON_SOURCES:lessons/%.cpp=%)
WEB_PAGE_STATIC    := $(wildcard web/*.html web/*.css web/*.js)
WEB_PAGE_EMBEDDED  := lessons/data/chapter_rope_vectors.txt experiment/chapter_table.txt
WEB_PAGE_EMBED     := $(foreach f,$(WEB_PAGE_EMBEDDED),--embed-file $(f)@/$(f))
WEB_PAGE_LDFLAGS   := $(WEB_OPTIMISE) -fexceptions -sENVIRONMENT=web,worker -sMODULARIZE=1 -sALLOW_MEMORY_GROWTH=1 \
                      $(WEB_PAGE_EMBED)
WEB_PAGE_FILES     := $(WEB_BUILD)/whereami_page.js $(WEB_BUILD)/whereami_lessons.js $(WEB_BUILD)/lessons.json \
                      $(WEB_PAGE_STATIC:web/%=$(WEB_BUILD)/%) $(WEB_PAGE_LESSONS:%=$(WEB_BUILD)/source/lessons/%.cpp)

web-page: $(WEB_PAGE_FILES) web-exercise

# make web-dist: build/web-dist/, the folder to publish: the page's files alone, the exercise's large
# files compressed with their pack.json (platform/web_dist.mjs), made whole beside it and then renamed.
WEB_DIST       := build/web-dist
WEB_DIST_STAMP := $(WEB_BUILD)/dist.made
WEB_DIST_FILES := $(WEB_PAGE_STATIC:web/%=%) lessons.json whereami_page.js whereami_page.wasm whereami_lessons.js \
                  whereami_lessons.wasm source compiler wasi_shim codemirror \
                  $(addprefix exercise/,files.json engine.a checker.o trainer.o)
web-dist: $(WEB_DIST_STAMP)
$(WEB_DIST_STAMP): $(WEB_PAGE_FILES) $(EXERCISE_WEB_FILES) platform/web_dist.mjs
	$(WEB_NODE) platform/web_dist.mjs $(WEB_BUILD) $(WEB_DIST) compiler exercise -- $(WEB_DIST_FILES)
	@touch $@

$(WEB_BUILD)/whereami_page.js: $(WEB_BUILD)/web/page_api.o $(WEB_BUILD)/web/page_widget.o $(WEB_BUILD)/web/page_experiment.o \
                             $(WEB_BUILD)/web/page_training.o $(WEB_LIBRARY) $(WEB_PAGE_EMBEDDED) $(WEB_LINK_FLAGS_FILE)
	NODE_PATH=$(WEB_NODE_PATH) $(EMXX) $(WEB_PAGE_LDFLAGS) -lembind -sEXPORT_NAME=createWhereami $(filter %.o %.a,$^) -o $@

$(WEB_BUILD)/page/lessons/%.o: lessons/%.cpp $(WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	@mkdir -p $(dir $@)
	$(EMXX) $(WEB_CXXFLAGS) $(WEB_CHECKED_FLAGS) -Dmain=lesson_$* -DWAI_IN_PAGE -DWAI_LESSONS_DATA_DIR='"/lessons/data"' -c $< -o $@
# It names every lesson of the page: made again when the list (lessons.json, below) is.
$(WEB_BUILD)/page/lessons_page.o: web/lessons_page.cpp $(WEB_FLAGS_FILE) $(WEB_BUILD)/lessons.json | $(WEB_INCLUDE)/.linked
	@mkdir -p $(dir $@)
	$(EMXX) $(WEB_CXXFLAGS) -DWAI_PAGE_LESSONS='$(foreach l,$(WEB_PAGE_LESSONS),WAI_LESSON($(l)))' -c $< -o $@
$(WEB_BUILD)/whereami_lessons.js: $(WEB_BUILD)/page/lessons_page.o $(WEB_PAGE_LESSONS:%=$(WEB_BUILD)/page/lessons/%.o) \
                                  $(WEB_CHECKED_LIBRARY) $(WEB_PAGE_EMBEDDED) $(WEB_LINK_FLAGS_FILE)
	NODE_PATH=$(WEB_NODE_PATH) $(EMXX) $(WEB_PAGE_LDFLAGS) -sEXPORT_NAME=createLessons -sINVOKE_RUN=0 -sEXIT_RUNTIME=1 \
	  -sEXPORTED_RUNTIME_METHODS=callMain $(filter %.o %.a,$^) -o $@

$(WEB_BUILD)/%: web/%
	@mkdir -p $(dir $@)
	cp $< $@
$(WEB_BUILD)/source/lessons/%.cpp: lessons/%.cpp
	@mkdir -p $(dir $@)
	cp $< $@
# [{"name": "05_rope", "title": "Lesson 05: RoPE."}, ...]: the first sentence of each lesson's header.
$(WEB_BUILD)/lessons.json: $(WEB_PAGE_LESSONS:%=lessons/%.cpp) platform/web.mk
	@mkdir -p $(dir $@)
	@{ printf '['; separator=''; for name in $(WEB_PAGE_LESSONS); do \
	    title=$$(head -n 1 lessons/$$name.cpp | sed -e 's|^// *||' -e 's|\. .*|.|' -e 's|["\\]||g'); \
	    printf '%s\n{"name": "%s", "title": "%s"}' "$$separator" "$$name" "$$title"; separator=','; done; \
	  printf ']\n'; } > $@.tmp && mv $@.tmp $@

# make test-web: train_position at --steps 100 under node and natively (one thread) on the lag task
# with every scheme of the chapter's table and t5, and the seen task with two (at 100 steps seen has
# not yet learned anything a scheme changes; tests/web_agreement.sh says why 0.01 is the tolerance),
# then the lessons that take seconds. Left out: lessons 08 and 11, which train for about a minute
# each under node (10 s natively); make test-web WEB_TEST_LESSONS='...' runs them.
WEB_TEST_STEPS   := 100
WEB_TEST_CASES   := lag:none lag:sinusoid lag:learned lag:rope lag:rope:1000000 lag:alibi:0.5 lag:alibi:0.0625 lag:t5 \
                    seen:rope seen:t5
WEB_TEST_LESSONS := $(filter-out 08_% 11_%,$(LESSON_SOURCES:lessons/%.cpp=%))
# Then the page in headless Chromium (tests/web/page_test.mjs): Debian's chromium, driven by
# playwright-core from npm at the version tests/web/package-lock.json pins (npm ci; nothing else is
# downloaded: playwright-core uses the system's browser). Screenshots go to $(WEB_SCREENSHOTS)/.
WEB_TEST_PACKAGES := chromium
WEB_CHROMIUM      := /usr/bin/chromium
WEB_NPM           := npm
WEB_TEST_MODULES  := tests/web/node_modules/.package-lock.json
WEB_SCREENSHOTS   := build/web-screenshots
# Last the exercise in the page (tests/web/exercise_test.mjs), held to the native checker's verdicts
# (the self-test's programs for the same code).
WEB_TEST_EXERCISE_FIXTURES := $(addprefix $(EXERCISE_BUILD)/fixtures/rope_rotation/,wrong_backwards wrong_row_off_by_one train_right)
test-web: all web check-web-test-deps $(WEB_TEST_MODULES) $(WEB_TEST_LESSONS:%=$(BUILD)/lessons/%) $(WEB_TEST_EXERCISE_FIXTURES)
	@status=0; \
	$(WEB_NODE) tests/web/serve_test.mjs || status=1; \
	$(WEB_NODE) tests/web/wasi_cc_test.mjs $(EXERCISE_WEB_CLANG) || status=1; \
	WEB_NODE=$(WEB_NODE) bash tests/web_agreement.sh $(BUILD) $(WEB_BUILD) $(WEB_TEST_STEPS) "$(WEB_TEST_CASES)" "$(WEB_TEST_LESSONS)" || status=1; \
	$(WEB_NODE) tests/web/page_test.mjs $(WEB_DIST) $(BUILD)/train_position $(WEB_SCREENSHOTS) $(WEB_CHROMIUM) || status=1; \
	$(WEB_NODE) tests/web/exercise_test.mjs $(WEB_DIST) $(EXERCISE_BUILD)/fixtures/rope_rotation $(WEB_SCREENSHOTS) $(WEB_CHROMIUM) || status=1; \
	exit $$status

# make test-web-long: the same agreement at the chapter's 2000 steps, for the experiment's 14
# configurations (seed 0), with the tolerance tests/web_agreement.sh states past 300 steps; about 12
# minutes on 2 cores, so not part of make test-web.
WEB_LONG_STEPS := 2000
WEB_LONG_CASES := $(foreach t,lag seen,$(foreach s,$(subst -,:,$(EXPERIMENT_SCHEMES)),$(t):$(s)))
.PHONY: test-web-long
test-web-long: all web
	@WEB_NODE=$(WEB_NODE) bash tests/web_agreement.sh $(BUILD) $(WEB_BUILD) $(WEB_LONG_STEPS) "$(WEB_LONG_CASES)" ""

# Chromium from Debian, and npm (the machine's, or Debian's) for playwright-core, installed as above.
check-web-test-deps:
	@missing='$(call missing_packages,$(WEB_TEST_PACKAGES))'; \
	command -v $(WEB_NPM) >/dev/null || missing="$$missing npm"; \
	if [ -n "$$(echo $$missing)" ]; then \
	  $(MAKE) --no-print-directory -f platform/debian.mk install-packages PACKAGES="$$(echo $$missing)" || exit 1; fi

$(WEB_TEST_MODULES): tests/web/package.json tests/web/package-lock.json
	cd tests/web && $(WEB_NPM) ci --no-audit --no-fund --loglevel=error

# make web-serve: the published folder on http://127.0.0.1:WEB_PORT/ (platform/web_serve.mjs) until Ctrl-C.
WEB_PORT := 8000
web-serve: web
	@$(WEB_NODE) platform/web_serve.mjs $(WEB_DIST) $(WEB_PORT)

# make bench-web: a training step in headless Chromium against the native one-thread step, in
# alternating rounds (bench/web_bench.mjs).
WEB_BENCH_FLAGS := --steps 20 --rounds 5
bench-web: web check-web-test-deps $(WEB_TEST_MODULES) $(BUILD)/bench_step
	@$(WEB_NODE) bench/web_bench.mjs $(WEB_DIST) $(BUILD)/bench_step $(WEB_BENCH_FLAGS) --chromium $(WEB_CHROMIUM)

-include $(wildcard $(WEB_BUILD)/*/*.d $(WEB_BUILD)/*/*/*.d $(WEB_BUILD)/*/*/*/*.d)

include platform/exercise_web.mk
