# The page's exercise (included by platform/web.mk): the learner's rope_rotation.cpp compiled and
# checked in the browser. Emscripten's objects cannot link with a compiler the page can run, so this
# part has a toolchain of its own: @yowasp/clang from npm (Clang and LLD built for WebAssembly, with a
# WASI sysroot), pinned in web/packages/package-lock.json, run here under node (platform/wasi_cc.mjs)
# to build the checker and the library objects it links, and copied into build/web/compiler/ for the
# page to compile and link the learner's file with the same flags (build/web/exercise/flags.json).
# The program it makes runs in a Web Worker under @bjorn3/browser_wasi_shim (also pinned, copied
# into build/web/wasi_shim/).
# C++ exceptions: the sysroot's libc++abi is built without them, and the engine reports every error
# by one. So the exception runtime is built here from LLVM's own libc++abi (cxa_exception.cpp,
# cxa_personality.cpp) and libunwind (Unwind-wasm.c) sources, for WebAssembly's exception handling
# (-fwasm-exceptions), as Emscripten builds them: the copy Debian's emscripten package ships
# (EXERCISE_WEB_LLVM_SOURCES); plus the one symbol they expect the toolchain to define, the tag
# __cpp_exception (exercise_tag.s: newer libunwind sources define it in Unwind-wasm.c themselves, and
# as unwind.o comes first in the archive, the linker then never takes this one), and
# __cxa_thread_atexit (exercise_thread_atexit.c).
# Leaves out the other exercises (the page has the course's one).
EXERCISE_WEB            := $(WEB_BUILD)/exercise
EXERCISE_WEB_WORK       := build/web-exercise
EXERCISE_WEB_PACKAGES   := build/web-packages
EXERCISE_WEB_CLANG      := $(EXERCISE_WEB_PACKAGES)/node_modules/@yowasp/clang
EXERCISE_WEB_SHIM       := $(EXERCISE_WEB_PACKAGES)/node_modules/@bjorn3/browser_wasi_shim
EXERCISE_WEB_INSTALLED  := $(EXERCISE_WEB_PACKAGES)/node_modules/.package-lock.json
EXERCISE_WEB_LLVM_SOURCES := /usr/share/emscripten/system/lib
EXERCISE_WEB_CC         := $(WEB_NODE) platform/wasi_cc.mjs $(EXERCISE_WEB_CLANG)
# The learner's flags, as natively (the checked build: WAI_CHECKED_INDEXING, -Werror=return-type), for
# wasm32-wasip1 with WebAssembly's exceptions; the sysroot's emulated signal() and getpid(), which
# startup/output_check.cpp and the verdict's guard (lessons/exercises/exercise.hpp) call.
EXERCISE_WEB_FLAGS      := -std=c++20 -O2 -msimd128 -fno-math-errno -fwasm-exceptions -Wall -Wextra \
                           -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_GETPID -DWAI_CHECKED_INDEXING -Werror=return-type \
                           -I. -isystem startup/web_include
EXERCISE_WEB_LIBS       := -lwasi-emulated-signal -lwasi-emulated-getpid
# The library objects the checker and the training program link: what the native links of
# build/exercises/rope_rotation and train_rope_rotation take from the archive, with the web build's
# files in place of the native ones (start-up, OpenMP's calls, the portable matrix product). A missing
# one fails the links below, at make web time.
EXERCISE_WEB_LIB_SOURCES := $(addsuffix .cpp,tensor/elementwise tensor/fast_math tensor/gemm tensor/gemm_portable tensor/gemm_web \
                           tensor/number_text tensor/random tensor/shape tensor/tensor \
                           autograd/arithmetic autograd/cross_entropy autograd/embedding autograd/gelu autograd/layer_norm \
                           autograd/linear autograd/matmul autograd/shape_ops autograd/softmax autograd/split_last autograd/value \
                           nn/adamw nn/attention nn/module nn/transformer \
                           positional/alibi positional/context_extension positional/learned positional/make_position \
                           positional/mine positional/rope positional/sinusoid positional/spec positional/t5_bias positional/yarn \
                           positional/yarn_paper \
                           tasks/evaluate tasks/experiment tasks/result_line tasks/run_checks tasks/task \
                           startup/startup_web startup/openmp_web startup/output_check)
# Compiled as two unity files (each #includes half of them, built side by side on two cores), for
# time: this compiler runs under node at about a tenth of its native speed, and most of a file's time
# is the standard headers every file reads again; two files of 20 take about a sixth of 41 files'
# time. The native build compiles each file alone, so a file that leans on another's includes fails
# there. The files of transcendental loops are compiled alone, with -ffast-math (below).
EXERCISE_WEB_ALONE      := $(filter $(FAST_MATH_OBJECTS:.o=.cpp),$(EXERCISE_WEB_LIB_SOURCES))
EXERCISE_WEB_UNITY      := $(filter-out $(EXERCISE_WEB_ALONE),$(EXERCISE_WEB_LIB_SOURCES))
EXERCISE_WEB_UNITY_HALF := $(shell echo $$(( ($(words $(EXERCISE_WEB_UNITY)) + 1) / 2 )))
EXERCISE_WEB_UNITY_1    := $(wordlist 1,$(EXERCISE_WEB_UNITY_HALF),$(EXERCISE_WEB_UNITY))
EXERCISE_WEB_UNITY_2    := $(wordlist $(shell echo $$(( $(EXERCISE_WEB_UNITY_HALF) + 1 ))),$(words $(EXERCISE_WEB_UNITY)),$(EXERCISE_WEB_UNITY))
EXERCISE_WEB_OBJECTS    := $(EXERCISE_WEB_WORK)/unity/unity_1.o $(EXERCISE_WEB_WORK)/unity/unity_2.o \
                           $(EXERCISE_WEB_ALONE:%.cpp=$(EXERCISE_WEB_WORK)/%.o)
# As the other builds: objects depend on the flags they were built with (rewritten only on a change).
EXERCISE_WEB_FLAGS_FILE := $(EXERCISE_WEB_WORK)/compile_flags.txt
EXERCISE_WEB_FLAGS_TEXT := $(EXERCISE_WEB_FLAGS) | fast_math: $(FAST_MATH_OBJECTS) -ffast-math -Wno-pass-failed | link: $(EXERCISE_WEB_LIBS) | unity: $(EXERCISE_WEB_UNITY_1) | $(EXERCISE_WEB_UNITY_2)
ifneq ($(filter web web-page web-dist web-exercise web-serve test-web test-web-long bench-web $(WEB_BUILD)/% $(EXERCISE_WEB_WORK)/%,$(MAKECMDGOALS)),)
  ifneq ($(shell cat $(EXERCISE_WEB_FLAGS_FILE) 2>/dev/null),$(EXERCISE_WEB_FLAGS_TEXT))
    $(shell mkdir -p $(EXERCISE_WEB_WORK) && printf '%s\n' '$(EXERCISE_WEB_FLAGS_TEXT)' > $(EXERCISE_WEB_FLAGS_FILE))
  endif
endif
# The two programs' own files: the checker, and the training run with the learner's rotation.
EXERCISE_WEB_MAINS      := $(EXERCISE_WEB)/checker.o $(EXERCISE_WEB)/trainer.o
EXERCISE_WEB_RUNTIME    := $(addprefix $(EXERCISE_WEB_WORK)/runtime/,cxa_exception.o cxa_personality.o unwind.o tag.o thread_atexit.o)
EXERCISE_WEB_ABI_FLAGS  := -fwasm-exceptions -O2 -DNDEBUG -D__USING_WASM_EXCEPTIONS__ -D_LIBCXXABI_BUILDING_LIBRARY \
                           -DLIBCXXABI_USE_LLVM_UNWINDER -I$(EXERCISE_WEB_WORK)/llvm/libcxxabi/include \
                           -I$(EXERCISE_WEB_WORK)/llvm/libcxxabi/src -I$(EXERCISE_WEB_WORK)/llvm/libunwind/include \
                           '-D_LIBCPP_INLINE_VISIBILITY=__attribute__((__always_inline__))' -std=c++14 \
                           -D_LIBCPP_ENABLE_CXX17_REMOVED_UNEXPECTED_FUNCTIONS
EXERCISE_WEB_UNWIND_FLAGS := -fwasm-exceptions -O2 -DNDEBUG -D__USING_WASM_EXCEPTIONS__ -include stdbool.h -D__EMSCRIPTEN__ \
                           -D_LIBUNWIND_DISABLE_VISIBILITY_ANNOTATIONS -I$(EXERCISE_WEB_WORK)/llvm/libunwind/include \
                           -I$(EXERCISE_WEB_WORK)/llvm/libunwind/src
# The headers the learner's file includes, for the page's compiler: every header of the folders it
# may reach (the learner's file includes its exercise's header, which includes the library's).
EXERCISE_WEB_HEADERS    := $(wildcard tensor/*.hpp autograd/*.hpp lessons/*.hpp lessons/exercises/*.hpp startup/web_include/*.h)
EXERCISE_WEB_FILES      := $(EXERCISE_WEB)/engine.a $(EXERCISE_WEB_MAINS) $(EXERCISE_WEB)/files.json \
                           $(EXERCISE_WEB_WORK)/scaffold_check.wasm $(EXERCISE_WEB_WORK)/scaffold_train.wasm \
                           $(WEB_BUILD)/compiler/.copied $(WEB_BUILD)/wasi_shim/.copied $(WEB_BUILD)/codemirror/.copied \
                           $(WEB_BUILD)/source/lessons/exercises/rope_rotation.cpp

web-exercise: $(EXERCISE_WEB_FILES)
.PHONY: web-exercise

# npm from Debian (or the machine's), installed on first use as the set-up installs the rest.
$(EXERCISE_WEB_INSTALLED): web/packages/package.json web/packages/package-lock.json | check-web-deps
	@command -v $(WEB_NPM) >/dev/null || $(MAKE) --no-print-directory -f platform/debian.mk install-packages PACKAGES=npm || exit 1
	@mkdir -p $(EXERCISE_WEB_PACKAGES)
	cp web/packages/package.json web/packages/package-lock.json $(EXERCISE_WEB_PACKAGES)/
	cd $(EXERCISE_WEB_PACKAGES) && $(WEB_NPM) ci --no-audit --no-fund --loglevel=error

$(EXERCISE_WEB_WORK)/llvm/.copied: | check-web-deps
	@test -f $(EXERCISE_WEB_LLVM_SOURCES)/libcxxabi/src/cxa_exception.cpp && test -f $(EXERCISE_WEB_LLVM_SOURCES)/libunwind/src/Unwind-wasm.c || \
	  { echo "web: missing LLVM's libc++abi and libunwind sources in $(EXERCISE_WEB_LLVM_SOURCES) (Debian package emscripten)" >&2; exit 1; }
	@rm -rf $(@D) && mkdir -p $(@D)/libcxxabi $(@D)/libunwind
	cp -r $(EXERCISE_WEB_LLVM_SOURCES)/libcxxabi/include $(EXERCISE_WEB_LLVM_SOURCES)/libcxxabi/src $(@D)/libcxxabi/
	cp -r $(EXERCISE_WEB_LLVM_SOURCES)/libunwind/include $(EXERCISE_WEB_LLVM_SOURCES)/libunwind/src $(@D)/libunwind/
	@touch $@

$(EXERCISE_WEB_WORK)/runtime/cxa_%.o: $(EXERCISE_WEB_WORK)/llvm/.copied $(EXERCISE_WEB_INSTALLED)
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_ABI_FLAGS) -c $(EXERCISE_WEB_WORK)/llvm/libcxxabi/src/cxa_$*.cpp -o $@
$(EXERCISE_WEB_WORK)/runtime/unwind.o: $(EXERCISE_WEB_WORK)/llvm/.copied $(EXERCISE_WEB_INSTALLED)
	$(EXERCISE_WEB_CC) $@ clang $(EXERCISE_WEB_UNWIND_FLAGS) -c $(EXERCISE_WEB_WORK)/llvm/libunwind/src/Unwind-wasm.c -o $@
$(EXERCISE_WEB_WORK)/runtime/tag.o: platform/exercise_tag.s $(EXERCISE_WEB_INSTALLED)
	$(EXERCISE_WEB_CC) $@ clang -c $< -o $@
$(EXERCISE_WEB_WORK)/runtime/thread_atexit.o: platform/exercise_thread_atexit.c $(EXERCISE_WEB_INSTALLED)
	$(EXERCISE_WEB_CC) $@ clang -O2 -Wall -Wextra -c $< -o $@

EXERCISE_WEB_ALL_HEADERS := $(EXERCISE_WEB_HEADERS) $(wildcard nn/*.hpp positional/*.hpp tasks/*.hpp startup/*.hpp lessons/exercises/train/*.hpp)
# Each waits, as every object of the web build does, for its set-up (include/.linked, after check-web-deps).
# unity_N.cpp: one #include line for each of its sources, rewritten only when the list changes.
$(EXERCISE_WEB_WORK)/unity/unity_%.cpp: $(EXERCISE_WEB_FLAGS_FILE)
	@mkdir -p $(@D)
	@printf '#include "%s"\n' $(EXERCISE_WEB_UNITY_$*) > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(EXERCISE_WEB_WORK)/unity/unity_1.o: $(EXERCISE_WEB_UNITY_1)
$(EXERCISE_WEB_WORK)/unity/unity_2.o: $(EXERCISE_WEB_UNITY_2)
$(EXERCISE_WEB_WORK)/unity/unity_%.o: $(EXERCISE_WEB_WORK)/unity/unity_%.cpp $(EXERCISE_WEB_ALL_HEADERS) $(EXERCISE_WEB_INSTALLED) $(EXERCISE_WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_FLAGS) -c $< -o $@
$(EXERCISE_WEB_WORK)/%.o: %.cpp $(EXERCISE_WEB_ALL_HEADERS) $(EXERCISE_WEB_INSTALLED) $(EXERCISE_WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_FLAGS) $(EXERCISE_WEB_FAST_MATH) -c $< -o $@
# As natively (FAST_MATH_OBJECTS), -ffast-math for the files of transcendental loops.
$(addprefix $(EXERCISE_WEB_WORK)/,$(filter-out fast/%,$(FAST_MATH_OBJECTS))): EXERCISE_WEB_FAST_MATH := -ffast-math -Wno-pass-failed
$(EXERCISE_WEB)/checker.o: lessons/exercises/check/rope_rotation.cpp $(EXERCISE_WEB_ALL_HEADERS) $(EXERCISE_WEB_INSTALLED) $(EXERCISE_WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_FLAGS) -c $< -o $@
$(EXERCISE_WEB)/trainer.o: lessons/exercises/train/rope_rotation.cpp $(EXERCISE_WEB_ALL_HEADERS) $(EXERCISE_WEB_INSTALLED) $(EXERCISE_WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_FLAGS) -c $< -o $@

# One archive: the link in the page takes what the learner's file and the program's own file need.
$(EXERCISE_WEB)/engine.a: $(EXERCISE_WEB_OBJECTS) $(EXERCISE_WEB_RUNTIME)
	@mkdir -p $(@D)
	@rm -f $@
	$(EXERCISE_WEB_CC) $@ ar rcs $@ $^

# Both programs with the course's scaffold (the learner's file as shipped) linked here, as the page
# links them: a make web that passes has linked each once.
$(EXERCISE_WEB_WORK)/scaffold.o: lessons/exercises/rope_rotation.cpp $(EXERCISE_WEB_HEADERS) $(EXERCISE_WEB_INSTALLED) $(EXERCISE_WEB_FLAGS_FILE) | $(WEB_INCLUDE)/.linked
	$(EXERCISE_WEB_CC) $@ clang++ $(EXERCISE_WEB_FLAGS) -c $< -o $@
$(EXERCISE_WEB_WORK)/scaffold_check.wasm: $(EXERCISE_WEB_WORK)/scaffold.o $(EXERCISE_WEB)/checker.o $(EXERCISE_WEB)/engine.a
	$(EXERCISE_WEB_CC) $@ clang++ -fwasm-exceptions $^ $(EXERCISE_WEB_LIBS) -o $@
$(EXERCISE_WEB_WORK)/scaffold_train.wasm: $(EXERCISE_WEB_WORK)/scaffold.o $(EXERCISE_WEB)/trainer.o $(EXERCISE_WEB)/engine.a
	$(EXERCISE_WEB_CC) $@ clang++ -fwasm-exceptions $^ $(EXERCISE_WEB_LIBS) -o $@

# What the page needs to compile and link: the flags, the learner's file as shipped, the headers.
$(EXERCISE_WEB)/files.json: $(EXERCISE_WEB_HEADERS) lessons/exercises/rope_rotation.cpp $(EXERCISE_WEB_FLAGS_FILE) platform/exercise_files.mjs
	@mkdir -p $(@D)
	$(WEB_NODE) platform/exercise_files.mjs $@ lessons/exercises/rope_rotation.cpp \
	  '$(EXERCISE_WEB_FLAGS)' '-fwasm-exceptions $(EXERCISE_WEB_LIBS)' $(EXERCISE_WEB_HEADERS)

$(WEB_BUILD)/compiler/.copied: $(EXERCISE_WEB_INSTALLED)
	@rm -rf $(@D) && mkdir -p $(@D)
	cp $(EXERCISE_WEB_CLANG)/gen/bundle.js $(EXERCISE_WEB_CLANG)/gen/*.wasm $(EXERCISE_WEB_CLANG)/gen/*.tar $(@D)/
	@touch $@
# The editor: CodeMirror 5's script and style, and its C-family mode (C++ among them).
$(WEB_BUILD)/codemirror/.copied: $(EXERCISE_WEB_INSTALLED)
	@rm -rf $(@D) && mkdir -p $(@D)
	cp $(EXERCISE_WEB_PACKAGES)/node_modules/codemirror/lib/codemirror.js $(EXERCISE_WEB_PACKAGES)/node_modules/codemirror/lib/codemirror.css \
	  $(EXERCISE_WEB_PACKAGES)/node_modules/codemirror/mode/clike/clike.js $(@D)/
	@touch $@
$(WEB_BUILD)/wasi_shim/.copied: $(EXERCISE_WEB_INSTALLED)
	@rm -rf $(@D) && mkdir -p $(@D)
	cp $(EXERCISE_WEB_SHIM)/dist/*.js $(@D)/
	@touch $@
