# The Debian packages whereami needs, and the set-up that installs them on first use (included by
# the Makefile). The same names serve Debian 12 and Debian 13, x86-64 and arm64: libclang-rt-dev is
# the runtime of whichever clang the release makes its default (14 on Debian 12, 19 on Debian 13).
#   make deps      installs what is missing (as root, or through sudo)
# Any make that builds something runs the same set-up while this file is read, before a compile
# starts; `make test` adds the test-time reference, PyTorch. A user who is not root and cannot use
# sudo gets one message with the exact apt-get line to run as root, and nothing is built.
# Leaves out other distributions: there check-deps names what is missing, one line each.
DEB_PACKAGES      := g++ make libopenblas-openmp-dev catch2 nlohmann-json3-dev valgrind clang libclang-rt-dev gnuplot-nox graphviz
TEST_DEB_PACKAGES := python3-torch python3-numpy locales

# The packages of $(1) that dpkg does not list as installed.
missing_packages = $(strip $(shell for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || printf '%s ' $$p; done))
# How this user may install: "root", "sudo" (sudo without a password, or with a terminal to ask for
# one), or nothing.
install_rights = $(shell if [ "$$(id -u)" = 0 ]; then echo root; \
  elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then echo sudo; fi)
# The apt-get line that installs $(1), and $(2) without what it recommends (PyTorch: the tests
# need only the library, not its recommended tools); $(3) is "sudo " or nothing.
apt_line = $(3)apt-get update && $(if $(1),$(3)apt-get install -y $(1))$(if $(1),$(if $(2), && ))$(if $(2),$(3)apt-get install -y --no-install-recommends $(2))

.PHONY: deps
deps:
	@missing='$(call missing_packages,$(DEB_PACKAGES))'; missing_test='$(call missing_packages,$(TEST_DEB_PACKAGES))'; \
	  if [ -z "$$missing$$missing_test" ]; then echo "deps: all present ($(DEB_PACKAGES) $(TEST_DEB_PACKAGES))"; exit 0; fi; \
	  $(MAKE) --no-print-directory -f platform/debian.mk install-packages PACKAGES="$$missing" TEST_PACKAGES="$$missing_test"

# The set-up on first use, while this file is read: only at the top make (the makes it starts find
# everything installed), and only where dpkg is. Either everything missing is installed, or the make
# stops with one message that names the apt-get line to run.
ifneq ($(filter-out deps help clean install-packages,$(or $(MAKECMDGOALS),all)),)
  ifeq ($(MAKELEVEL),0)
    ifneq ($(shell command -v dpkg-query),)
      SETUP_MISSING      := $(call missing_packages,$(DEB_PACKAGES))
      SETUP_MISSING_TEST := $(if $(filter test,$(MAKECMDGOALS)),$(call missing_packages,$(TEST_DEB_PACKAGES)))
      ifneq ($(SETUP_MISSING)$(SETUP_MISSING_TEST),)
        SETUP_RIGHTS := $(install_rights)
        ifeq ($(SETUP_RIGHTS),)
          $(error set-up: missing Debian packages: $(strip $(SETUP_MISSING) $(SETUP_MISSING_TEST)). Installing them needs root or sudo, and $(shell id -un) has neither. As root, run '$(call apt_line,$(SETUP_MISSING),$(SETUP_MISSING_TEST),)', then make again)
        endif
        SETUP_STATUS := $(shell $(MAKE) --no-print-directory -f platform/debian.mk install-packages PACKAGES="$(SETUP_MISSING)" TEST_PACKAGES="$(SETUP_MISSING_TEST)" >&2; echo $$?)
        ifneq ($(SETUP_STATUS),0)
          $(error set-up: apt-get could not install $(strip $(SETUP_MISSING) $(SETUP_MISSING_TEST)) (its messages are above); nothing was built. Run '$(call apt_line,$(SETUP_MISSING),$(SETUP_MISSING_TEST),$(if $(filter sudo,$(SETUP_RIGHTS)),sudo ))' yourself, then make again)
        endif
      endif
    endif
  endif
endif

# Installs PACKAGES, and TEST_PACKAGES without what they recommend, with this user's rights (run by
# the set-up above and by make deps, as a make of this file alone).
.PHONY: install-packages
install-packages:
	@rights='$(install_rights)'; \
	  if [ -z "$$rights" ]; then echo "set-up: missing Debian packages: $(strip $(PACKAGES) $(TEST_PACKAGES)). Installing them needs root or sudo, and $$(id -un) has neither. As root, run '$(call apt_line,$(PACKAGES),$(TEST_PACKAGES),)', then make again" >&2; exit 1; fi; \
	  sudo=; [ "$$rights" = sudo ] && sudo='sudo '; \
	  echo "set-up: installing $(strip $(PACKAGES) $(TEST_PACKAGES)) with $${sudo}apt-get, once" >&2; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $${sudo}apt-get update -qq && \
	  { [ -z '$(strip $(PACKAGES))' ] || $${sudo}apt-get install -y -qq $(PACKAGES) >/dev/null; } && \
	  { [ -z '$(strip $(TEST_PACKAGES))' ] || $${sudo}apt-get install -y -qq --no-install-recommends $(TEST_PACKAGES) >/dev/null; } && \
	  echo "set-up: installed $(strip $(PACKAGES) $(TEST_PACKAGES))" >&2
