# Proofs that whereami builds and passes where the README says it runs (included by the Makefile):
#   make test-debian RELEASE=trixie   the README's two commands in a fresh Debian 13 root, from
#                                     nothing (platform/debian_chroot.sh); RELEASE=bookworm: Debian 12
#   make test-arm64                   a cross-build for arm64 (aarch64-linux-gnu-g++, Debian's arm64
#                                     OpenBLAS through multiarch), the test program run under qemu-user,
#                                     a short train_position run held to the native one, and two lessons
# Both change this machine (debootstrap needs root; test-arm64 adds the arm64 architecture to dpkg and
# installs the cross compiler, and registers qemu-aarch64 in binfmt_misc), so neither is part of
# make test.
# Leaves out a native arm64 machine: qemu-user emulates one, slowly.
.PHONY: test-debian test-arm64

RELEASE ?= trixie
test-debian:
	@case '$(RELEASE)' in trixie|bookworm) ;; *) echo "test-debian: RELEASE must be trixie (Debian 13) or bookworm (Debian 12), got '$(RELEASE)'" >&2; exit 2;; esac
	@bash platform/debian_chroot.sh '$(RELEASE)'

# The cross-build: the same sources, CXX the cross compiler, no -march=native (that names this
# machine's CPU), in build/arm64/. Catch2 v3 is a library, so it needs its arm64 build as well.
ARM64_BUILD     := build/arm64
ARM64_CXX       := aarch64-linux-gnu-g++
ARM64_PACKAGES  := g++-aarch64-linux-gnu libopenblas-openmp-dev:arm64 libstdc++6:arm64 qemu-user-static $(if $(filter 3,$(CATCH_VERSION)),catch2:arm64)
ARM64_MAKE       = $(MAKE) --no-print-directory CXX=$(ARM64_CXX) NATIVE_ARCH= BUILD=$(ARM64_BUILD)
# Under qemu the test program leaves out what takes minutes natively: [slow] (two 2000-step
# trainings), [roundtrip] (28 trainings held to PyTorch) and [lessons] (every lesson run whole:
# lesson 08 alone trains for over half an hour under qemu; lessons 05 and 09 run below instead);
# and [cli], the cases that start the programs (over an hour under qemu on 2 cores, most of it the
# tools' and make's own cases, which are the same on every machine and which make test holds). In
# their place the arm64 train_position itself runs a short training: its exit code, its line held
# to the native program's (each accuracy within 0.01, as tests/web_agreement.sh holds the node
# program), the same line on 1 and 2 threads, and a bad argument refused in one line with exit 2.
ARM64_TAGS      := ~[slow]~[roundtrip]~[lessons]~[cli]
ARM64_LESSONS   := 05_rope 09_log_scaling
ARM64_RUN       := lag rope 0 --steps 30 --batch 64 --dim 16 --mlp 32 --eval-seqs 16
# OPENBLAS_CORETYPE names this machine's x86 kernels (Haswell on some of these machines); arm64's
# OpenBLAS knows other names (ARMV8, NEOVERSEN1, ...), so the arm64 programs run without it and pick
# their own, as they would on an arm64 machine.

test-arm64: SHELL := /bin/bash
test-arm64:
	@missing=$$(for p in $(ARM64_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || printf '%s ' $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "test-arm64: missing $$missing; as root, run: dpkg --add-architecture arm64 && apt-get update && apt-get install -y $$missing" >&2; exit 1; fi; \
	  echo "test-arm64: installing $$missing (dpkg --add-architecture arm64)"; \
	  dpkg --add-architecture arm64 && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; fi
	@if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "test-arm64: the kernel does not start arm64 programs through qemu (no qemu-aarch64 in /proc/sys/fs/binfmt_misc), and the programs start copies of themselves; as root, run make test-arm64 (it registers qemu-aarch64-static there)" >&2; exit 1; fi; \
	  echo "test-arm64: registering qemu-aarch64-static in /proc/sys/fs/binfmt_misc (the kernel then starts arm64 programs through it)"; \
	  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 1; \
	  f=/usr/share/binfmts/qemu-aarch64; \
	  [ -r $$f ] || { echo "test-arm64: $$f is missing, which says how to register qemu-aarch64-static (Debian package qemu-user-static)" >&2; exit 1; }; \
	  printf ':qemu-aarch64:M:0:%s:%s:%s:PF\n' "$$(awk '$$1=="magic"{print $$2}' $$f)" "$$(awk '$$1=="mask"{print $$2}' $$f)" "$$(awk '$$1=="interpreter"{print $$2}' $$f)" > /proc/sys/fs/binfmt_misc/register || exit 1; fi
	+@$(ARM64_MAKE) -j$(CORES) $(ARM64_BUILD)/run_tests $(ARM64_BUILD)/train_position $(ARM64_LESSONS:%=$(ARM64_BUILD)/lessons/%)
	+@$(MAKE) --no-print-directory -j$(CORES) $(BUILD)/train_position
	@$(ARM64_CXX:g++=readelf) -h $(ARM64_BUILD)/run_tests 2>/dev/null | grep -q "Machine: *AArch64" || { echo "test-arm64: $(ARM64_BUILD)/run_tests is not an arm64 program" >&2; exit 1; }
	@echo "test-arm64: the test program under qemu-aarch64-static, tags '$(ARM64_TAGS)': leaving out [slow] (two 2000-step trainings), [roundtrip] (28 trainings held to PyTorch), [lessons] (lessons 05 and 09 run below instead) and [cli] (the cases that start the programs and make; a short train_position run below instead)"; \
	  start=$$(date +%s); env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=2 qemu-aarch64-static $(ARM64_BUILD)/run_tests $(CATCH_NO_TESTS) '$(ARM64_TAGS)' || exit 1; \
	  echo "test-arm64: the test program took $$(( $$(date +%s) - start )) s under qemu"
	@native=$$($(BUILD)/train_position $(ARM64_RUN) --threads 1 --quiet) || exit 1; \
	  start=$$(date +%s); \
	  one=$$(env -u OPENBLAS_CORETYPE qemu-aarch64-static $(ARM64_BUILD)/train_position $(ARM64_RUN) --threads 1 --quiet) || { echo "test-arm64: train_position $(ARM64_RUN) FAILED"; exit 1; }; \
	  two=$$(env -u OPENBLAS_CORETYPE qemu-aarch64-static $(ARM64_BUILD)/train_position $(ARM64_RUN) --threads 2 --quiet) || { echo "test-arm64: train_position --threads 2 FAILED"; exit 1; }; \
	  echo "  native: $$native"; echo "  arm64:  $$one"; \
	  [ "$$one" = "$$two" ] || { echo "test-arm64: train_position gave another line on 2 threads: $$two"; exit 1; }; \
	  words() { printf '%s\n' "$$1" | sed 's/[0-9]\.[0-9][0-9][0-9]/#/g'; }; \
	  [ "$$(words "$$native")" = "$$(words "$$one")" ] || { echo "test-arm64: the two lines differ in more than their accuracies"; exit 1; }; \
	  worst=$$(paste <(printf '%s\n' "$$native" | grep -o '[0-9]\.[0-9][0-9][0-9]') <(printf '%s\n' "$$one" | grep -o '[0-9]\.[0-9][0-9][0-9]') | \
	    LC_ALL=C awk '{ d = $$1 - $$2; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.3f", w }'); \
	  LC_ALL=C awk -v w="$$worst" 'BEGIN { exit !(w <= 0.01 + 1e-9) }' || { echo "test-arm64: accuracies differ from native by $$worst, past 0.01"; exit 1; }; \
	  refusal=$$(env -u OPENBLAS_CORETYPE qemu-aarch64-static $(ARM64_BUILD)/train_position lag rope 0 --steps x 2>&1 >/dev/null); status=$$?; \
	  [ $$status = 2 ] && [ "$$(printf '%s\n' "$$refusal" | grep -c .)" = 1 ] || { echo "test-arm64: --steps x was not refused in one line with exit 2 (exit $$status): $$refusal"; exit 1; }; \
	  echo "test-arm64: train_position: the native line within 0.01 (largest difference $$worst), the same on 1 and 2 threads, a bad argument refused in one line; $$(( $$(date +%s) - start )) s under qemu"
	@for lesson in $(ARM64_LESSONS); do echo "test-arm64: lesson $$lesson under qemu-aarch64-static"; \
	  start=$$(date +%s); env -u OPENBLAS_CORETYPE qemu-aarch64-static $(ARM64_BUILD)/lessons/$$lesson > $(ARM64_BUILD)/lessons/$$lesson.out 2>&1 \
	    || { cat $(ARM64_BUILD)/lessons/$$lesson.out; echo "test-arm64: lesson $$lesson FAILED"; exit 1; }; \
	  echo "test-arm64: lesson $$lesson: $$(grep -c '\[ok\]' $(ARM64_BUILD)/lessons/$$lesson.out) [ok], $$(grep -c '\[FAILED\]' $(ARM64_BUILD)/lessons/$$lesson.out) [FAILED], $$(( $$(date +%s) - start )) s"; done
