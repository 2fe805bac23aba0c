# SPDX-License-Identifier: ISC
#
# airlock: one non-recursive GNU Makefile. Each folder contributes a *.mk
# fragment; every binary asks pkg-config for exactly the libraries it links,
# so the launcher never sees yajl, libevent or libseccomp.

# A sanitizer build (make check SANITIZE=address,undefined) has its own
# directory: objects do not record the flags they were built with.
ifneq ($(SANITIZE),)
BUILD   ?= build-san
else
BUILD   ?= build
endif
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/airlock
MANDIR  ?= $(PREFIX)/share/man
SYSTEMDUSERUNITDIR ?= $(PREFIX)/lib/systemd/user
DESTDIR ?=
CC      ?= cc
PKG_CONFIG ?= pkg-config

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wimplicit-fallthrough -Wvla
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong \
	-fstack-clash-protection -fcf-protection -fPIE
LDHARDEN := -pie -Wl,-z,relro,-z,now
OPT ?= -O2 -g

ifneq ($(CI),)
WERROR := -Werror
endif

# A sanitizer build is not -Werror: GCC's instrumentation makes false
# warnings of its own (format-truncation, string-compare on inlined
# constants); the plain build, which CI also makes, keeps -Werror.
ifneq ($(SANITIZE),)
WERROR :=
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
HARDEN := $(filter-out -D_FORTIFY_SOURCE=3,$(HARDEN))
endif

CPPFLAGS += -I. -D_GNU_SOURCE -DAIRLOCK_LIBEXECDIR='"$(LIBEXECDIR)"'
ALL_CFLAGS = -std=gnu17 $(OPT) $(WARN) $(WERROR) $(HARDEN) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDHARDEN) $(SANFLAGS) $(LDFLAGS)

pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

PROGS :=
UNIT_TESTS :=
FUZZERS :=
HELPERS :=

.PHONY: bench-deps
.PHONY: all check demo bench fuzz loc install uninstall clean deps unit integration fuzz-check
all:

include common/common.mk
include policy/policy.mk
include supervisor/supervisor.mk
include client/client.mk
include launcher/launcher.mk
include guard/guard.mk
include proxyd/proxyd.mk
include gatewayd/gatewayd.mk
include clone/clone.mk
include fs/fs.mk
include tests/tests.mk

all: $(PROGS) $(HELPERS)

# Sanitizer builds: the daemons that keep their seccomp filter to exit
# link common/san/nolsan.c (why: there).
ifneq ($(SANITIZE),)
$(BUILD)/airlock-proxyd $(BUILD)/airlock-gatewayd $(BUILD)/airlock-clone: \
    $(BUILD)/obj/common/san/nolsan.o
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(OBJ_PKG_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# AIRLOCK_LIBEXECDIR is compiled into airlockd (sv_child.o): the stamp
# changes when PREFIX or LIBEXECDIR does, so `make install PREFIX=...`
# after a default build rebuilds what looks for the helpers there.
LIBEXECDIR_STAMP := $(BUILD)/libexecdir.stamp
$(LIBEXECDIR_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIBEXECDIR)' | cmp -s - $@ 2>/dev/null || \
	    echo '$(LIBEXECDIR)' > $@
$(BUILD)/obj/supervisor/sv_child.o: $(LIBEXECDIR_STAMP)
.PHONY: FORCE
FORCE:

# Build dependencies: install what pkg-config cannot find (contrib/).
deps:
	@sh contrib/install-deps.sh --if-missing

demo: deps
	@$(MAKE) --no-print-directory all
	@sh contrib/demo.sh $(BUILD)

# With SANITIZE the fuzz targets are not built again: they carry their
# own sanitizers and run in the plain `make check`.
ifneq ($(SANITIZE),)
CHECK_BINS := all unit-bins asan-client
CHECK_ENV := SANITIZE='$(SANITIZE)' FUZZ_SECONDS=0
else
CHECK_BINS := all unit-bins fuzz-bins asan-client
CHECK_ENV :=
endif
check: deps
	@$(MAKE) --no-print-directory $(CHECK_BINS)
	@$(CHECK_ENV) sh tests/run.sh $(BUILD)

# make bench's own tools (hyperfine, squid, ...) on top of make check's.
bench-deps:
	@sh contrib/install-deps.sh --bench --if-missing

bench: bench-deps
	@$(MAKE) --no-print-directory all test-bins
	@sh tests/bench/run.sh $(BUILD)

# What a reviewer of each reads: the launcher with the common/ files it
# links (budget 3000 lines, none of them rule tables), and airlock-guard
# with its own, the rule engine.
loc:
	@echo "airlock-launcher: launcher/ + the common/ files it links (budget 3000):"
	@wc -l launcher/*.c launcher/*.h $(foreach f,$(filter common/%,$(LAUNCHER_SRCS)),$(f:.c=.h) $(f)) | sort -n
	@echo "airlock-guard: guard/ + the common/ files it links:"
	@wc -l guard/*.c guard/*.h $(foreach f,$(filter common/%,$(GUARD_SRCS)),$(wildcard $(f:.c=.h)) $(f)) | sort -n

# The client runs airlockd from its own directory (airlock_sibling), so
# both are in BINDIR; airlockd finds the helpers beside itself, then in
# ../libexec/airlock from there, then in LIBEXECDIR.
INSTALLED_HELPERS := airlock-launcher airlock-guard airlock-proxyd \
	airlock-gatewayd airlock-clone airlock-fs
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BUILD)/airlock $(BUILD)/airlockd $(DESTDIR)$(BINDIR)/
	install -m 0755 $(INSTALLED_HELPERS:%=$(BUILD)/%) $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 contrib/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 contrib/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0644 contrib/completion/airlock.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/airlock
	install -m 0644 contrib/completion/_airlock \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_airlock
	install -d $(DESTDIR)$(SYSTEMDUSERUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/systemd/airlockd.service \
		> $(DESTDIR)$(SYSTEMDUSERUNITDIR)/airlockd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUSERUNITDIR)/airlockd.service
	install -m 0644 contrib/systemd/airlockd.socket \
		$(DESTDIR)$(SYSTEMDUSERUNITDIR)/

# Removes what install put there (the same PREFIX and DESTDIR), and the
# helpers' directory, which is airlock's alone.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/airlock $(DESTDIR)$(BINDIR)/airlockd
	rm -f $(INSTALLED_HELPERS:%=$(DESTDIR)$(LIBEXECDIR)/%)
	rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null || true
	rm -f $(patsubst contrib/man/%,$(DESTDIR)$(MANDIR)/man1/%,$(wildcard contrib/man/*.1))
	rm -f $(patsubst contrib/man/%,$(DESTDIR)$(MANDIR)/man8/%,$(wildcard contrib/man/*.8))
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/airlock \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_airlock
	rm -f $(DESTDIR)$(SYSTEMDUSERUNITDIR)/airlockd.service \
		$(DESTDIR)$(SYSTEMDUSERUNITDIR)/airlockd.socket

clean:
	rm -rf $(BUILD)
