# Proofs that whereami builds and passes where the README says it runs (included by the Makefile):
#   make test-debian RELEASE=trixie   the README's two commands in a fresh Debian 13 root, from
#                                     nothing (platform/debian_chroot.sh); RELEASE=bookworm: Debian 12
#   make test-arm64                   a cross-build for arm64 (aarch64-linux-gnu-g++, Debian's arm64
#                                     OpenBLAS through multiarch), the test program run under qemu-user,
#                                     and two lessons
# Both change this machine (debootstrap needs root; test-arm64 adds the arm64 architecture to dpkg and
# installs the cross compiler), so neither is part of make test.
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
# the make tests and the exercises' (tests/test_cli_make.cpp, tests/test_cli_exercises.cpp: they
# drive make itself, the same on every machine, and its makes build and use the native programs and
# the exercise fixtures, which make test holds); and, where the kernel cannot
# start an arm64 program by itself (no binfmt_misc entry for qemu-aarch64), [cli], whose cases
# start the programs. (-# makes each file's name a tag.)
ARM64_TAGS      := ~[slow]~[roundtrip]~[lessons]~[\#test_cli_make]~[\#test_cli_exercises]
ARM64_NO_BINFMT := ~[cli]
ARM64_LESSONS   := 05_rope 09_log_scaling
# OPENBLAS_CORETYPE names this machine's x86 kernels (Haswell on some of these machines); arm64's
# OpenBLAS knows other names (ARMV8, NEOVERSEN1, ...), so the arm64 programs run without it and pick
# their own, as they would on an arm64 machine.

test-arm64:
	@missing=$$(for p in $(ARM64_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || printf '%s ' $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "test-arm64: missing $$missing; as root, run: dpkg --add-architecture arm64 && apt-get update && apt-get install -y $$missing" >&2; exit 1; fi; \
	  echo "test-arm64: installing $$missing (dpkg --add-architecture arm64)"; \
	  dpkg --add-architecture arm64 && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; fi
	@# qemu-user-static's entry for the kernel, which systemd-binfmt registers at boot; where nothing
	@# did (a container), registered here when root may.
	@if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && [ "$$(id -u)" = 0 ] && [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]; then \
	  { [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; } && \
	  cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register 2>/dev/null && \
	  echo "test-arm64: registered qemu-aarch64 with binfmt_misc, so arm64 programs start as any program does"; true; fi
	+@$(ARM64_MAKE) -j$(CORES) $(ARM64_BUILD)/run_tests $(ARM64_LESSONS:%=$(ARM64_BUILD)/lessons/%)
	@$(ARM64_CXX:g++=readelf) -h $(ARM64_BUILD)/run_tests 2>/dev/null | grep -q "Machine: *AArch64" || { echo "test-arm64: $(ARM64_BUILD)/run_tests is not an arm64 program" >&2; exit 1; }
	@tags='$(ARM64_TAGS)'; note=; \
	  grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || \
	    { tags='$(ARM64_TAGS)$(ARM64_NO_BINFMT)'; note=' (no binfmt_misc entry for qemu-aarch64: the cases that start programs are left out)'; }; \
	  echo "test-arm64: the test program under qemu-aarch64-static, tags '$$tags'$$note"; \
	  start=$$(date +%s); env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=2 qemu-aarch64-static $(ARM64_BUILD)/run_tests $(CATCH_NO_TESTS) -\# "$$tags" || exit 1; \
	  echo "test-arm64: the test program took $$(( $$(date +%s) - start )) s under qemu"
	@for lesson in $(ARM64_LESSONS); do echo "test-arm64: lesson $$lesson under qemu-aarch64-static"; \
	  start=$$(date +%s); env -u OPENBLAS_CORETYPE qemu-aarch64-static $(ARM64_BUILD)/lessons/$$lesson > $(ARM64_BUILD)/lessons/$$lesson.out 2>&1 \
	    || { cat $(ARM64_BUILD)/lessons/$$lesson.out; echo "test-arm64: lesson $$lesson FAILED"; exit 1; }; \
	  echo "test-arm64: lesson $$lesson: $$(grep -c '\[ok\]' $(ARM64_BUILD)/lessons/$$lesson.out) [ok], $$(grep -c '\[FAILED\]' $(ARM64_BUILD)/lessons/$$lesson.out) [FAILED], $$(( $$(date +%s) - start )) s"; done
