# make fuzz: the safetensors reader (files/weights_file.cpp) under libFuzzer for FUZZ_SECONDS, with
# AddressSanitizer and UndefinedBehaviorSanitizer, on inputs of up to FUZZ_MAX_LEN bytes (1 MiB: a header
# nested 60,000 levels deep is 120 kB), with the dictionary tests/fuzz/weights.dict, seeded with real
# weight files (PyTorch's golden files, three small ones train_position saves, one in the chapter's
# layout) and the hand-made ones in tests/fuzz/seeds/. Needs Debian's clang and libclang-rt-dev
# (libFuzzer, for the installed clang); nothing else in the project does. The reader and what it links
# (FUZZ_SOURCES: the tensor it fills, the header's JSON, the atomic write beside it) are compiled again
# with clang into build/fuzz/, not the whole library: a new dependency of the reader fails the link,
# naming the symbol, and goes in the list.
# A crash is written to build/fuzz/crash-*; copy it into tests/fuzz/regressions/ (make test replays it).
# Leaves out keeping the grown corpus in git: it lives in build/fuzz/corpus/ and grows run by run.
FUZZ_CXX     ?= clang++
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 1048576
FUZZ_BUILD   := build/fuzz
FUZZ_FLAGS   := -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
                -I. -MMD -MP
FUZZ_SOURCES := files/weights_file.cpp files/weights_header_json.cpp files/atomic_file.cpp \
                tensor/tensor.cpp tensor/shape.cpp tensor/random.cpp
FUZZ_OBJECTS := $(FUZZ_SOURCES:%.cpp=$(FUZZ_BUILD)/%.o)
FUZZ_BINARY  := $(FUZZ_BUILD)/fuzz_weights_file
FUZZ_SEEDS   := $(FUZZ_BUILD)/seeds

.PHONY: fuzz check-fuzz-deps

check-fuzz-deps: check-deps
	@command -v $(FUZZ_CXX) >/dev/null || { echo "missing: clang for make fuzz; run 'make deps' (Debian package clang)"; exit 1; }
	@ls "$$($(FUZZ_CXX) -print-runtime-dir)"/libclang_rt.fuzzer*.a >/dev/null 2>&1 || \
	  { echo "missing: libFuzzer for make fuzz; run 'make deps' (Debian package libclang-rt-dev, the runtime of the installed clang)"; exit 1; }

# OpenMP is left out (no -fopenmp): the reader has no parallel loops, and clang's runtime is not libgomp.
$(FUZZ_BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BINARY): $(FUZZ_BUILD)/tests/fuzz/fuzz_weights_file.o $(FUZZ_OBJECTS)
	$(FUZZ_CXX) -fsanitize=address,undefined,fuzzer $^ -o $@ -lm

# Seeds are copied at run time, never kept in git twice. -max_len holds a deep header many times over
# and most golden files whole; the largest (1.3 MB) are cut, which the reader must refuse cleanly.
fuzz: check-fuzz-deps $(FUZZ_BINARY) $(BUILD)/train_position
	@mkdir -p $(FUZZ_SEEDS) $(FUZZ_BUILD)/corpus
	@cp tests/reference/*.safetensors tests/fuzz/regressions/* tests/fuzz/seeds/* $(FUZZ_SEEDS)/
	@$(BUILD)/train_position lag rope 0 --steps 1 --dim 4 --mlp 4 --layers 1 --batch 1 --eval-seqs 1 --quiet \
	  --save $(FUZZ_SEEDS)/small_lag_rope.safetensors >/dev/null
	@$(BUILD)/train_position seen learned 0 --steps 1 --dim 2 --mlp 2 --layers 1 --batch 1 --eval-seqs 1 --quiet \
	  --save $(FUZZ_SEEDS)/small_seen_learned.safetensors >/dev/null
	@$(BUILD)/train_position lag learned 0 --steps 1 --dim 2 --mlp 2 --layers 1 --batch 1 --eval-seqs 1 --quiet \
	  --save-layout chapter --save $(FUZZ_SEEDS)/small_lag_learned_chapter.safetensors >/dev/null
	@echo "fuzz: $(FUZZ_BINARY) for $(FUZZ_SECONDS) s, inputs up to $(FUZZ_MAX_LEN) bytes, seeds in $(FUZZ_SEEDS), corpus in $(FUZZ_BUILD)/corpus"
	@$(FUZZ_BINARY) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=$(FUZZ_MAX_LEN) \
	  -dict=tests/fuzz/weights.dict -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	  $(FUZZ_BUILD)/corpus $(FUZZ_SEEDS) > $(FUZZ_BUILD)/fuzz.log 2>&1; status=$$?; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_BUILD)/fuzz.log); \
	  if [ $$status -ne 0 ]; then tail -n 40 $(FUZZ_BUILD)/fuzz.log; \
	    echo "fuzz: FAILED after $${runs:-?} executions; the input is in $(FUZZ_BUILD)/ (crash-*, timeout-* or oom-*)"; exit 1; fi; \
	  echo "fuzz: $$runs executions in $(FUZZ_SECONDS) s, no crash, hang or sanitizer report (log: $(FUZZ_BUILD)/fuzz.log)"

-include $(wildcard $(FUZZ_BUILD)/*/*.d $(FUZZ_BUILD)/tests/fuzz/*.d)
