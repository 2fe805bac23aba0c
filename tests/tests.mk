# tests/: check unit tests (one binary per tests/unit/test_<module>.c, each
# with its own main), small C helpers the integration tests run inside
# sandboxes, and libFuzzer targets (built with clang when present).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_PKGS := check yajl libevent libseccomp
$(BUILD)/obj/tests/unit/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(UNIT_PKGS))
# Unit tests may exercise the supervisor modules that need no event loop:
# the host-side shared files, airlockd's modules that need no event loop
# (the plan, the spec parser, the probe, seccomp, credentials, git config
# and hooksPath, the gateway's repository records) and the client's
# origin check.
UNIT_SV_SRCS = $(HOST_SHARED_SRCS) supervisor/sv_plan.c supervisor/sv_nodeproxy.c supervisor/sv_spec.c \
	supervisor/sv_sbpl.c \
	supervisor/sv_probe.c supervisor/sv_seccomp.c supervisor/credentials.c \
	supervisor/gitcfg.c supervisor/hookspath.c supervisor/gwrepo.c \
	client/gitorigin.c client/cli_explain.c
UNIT_SV_OBJS = $(UNIT_SV_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_SV_OBJS) $(LIBPOLICY) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(UNIT_PKGS))

# test_cliopt checks the client's option table (client/cli_opt.c).
$(BUILD)/tests/test_cliopt: $(BUILD)/obj/client/cli_opt.o
# test_tlsca makes proxyd's per-session CA and checks its leaves.
$(BUILD)/tests/test_tlsca: $(BUILD)/obj/proxyd/tlsca.o
$(BUILD)/tests/test_tlsca: UNIT_PKGS += openssl

# test_relay drives proxyd's splice relay itself, on loopback TCP.
$(BUILD)/tests/test_relay: $(BUILD)/obj/proxyd/relay.o

HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g -Wall -o $@ $< -lpthread

FUZZ_SRCS := $(wildcard tests/fuzz/*_fuzzer.c)
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE
FUZZ_COMMON := $(filter-out common/evglue.c common/sandbox_self.c,$(COMMON_SRCS)) $(POLICY_SRCS)
FUZZERS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
# The hook (in json_fuzzer) judges paths with the protection tables.
FUZZ_EXTRA_json := common/host/protect.c common/host/paths.c
# airlock-fs's parsers of the agent's patches and globs (issue 17).
FUZZ_EXTRA_patch := fs/patch.c fs/glob.c
FUZZ_EXTRA_glob := fs/glob.c
$(BUILD)/fuzz/%_fuzzer: tests/fuzz/%_fuzzer.c $(FUZZ_COMMON) $(FUZZ_EXTRA_json) \
	$(FUZZ_EXTRA_patch)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(call pc_cflags,yajl libevent) -o $@ $< $(FUZZ_EXTRA_$*) $(FUZZ_COMMON) $(call pc_libs,yajl libevent)

.PHONY: unit-bins fuzz-bins
unit-bins: $(UNIT_TESTS) $(HELPERS)
fuzz-bins:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(FUZZERS); \
	else echo "fuzz: $(FUZZ_CC) not found, fuzz targets not built"; fi
fuzz: fuzz-bins
	@sh tests/fuzz/run.sh $(BUILD) 300

# px_drive stands in for airlockd in front of proxyd: it needs the framing.
$(BUILD)/tests/helpers/px_drive: tests/helpers/px_drive.c $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g -Wall $(SANFLAGS) -o $@ $< $(LIBCOMMON)

# The test build: airlock and airlockd with their test hooks
# (--test-unlisted-bind / testUnlistedBind, AIRLOCK_TEST_NO_NOTIFY), in
# $(BUILD)/test/, for the tests and benchmarks only.  Only the files that
# hold a hook are compiled again with -DAIRLOCK_TEST_BUILD; the helpers
# beside them are links to the shipped ones.  Nothing shipped carries a
# hook: hardening.sh greps $(BUILD)/airlock*.
TB := $(BUILD)/test
TB_HOOK_SRCS := client/cli_run.c supervisor/sv_spec.c supervisor/sv_seccomp.c \
	client/cli_acp.c client/cli_opt.c supervisor/sv_clock.c \
	supervisor/sv_self.c
tb_objs = $(foreach f,$(1),$(if $(filter $(f),$(TB_HOOK_SRCS)),$(TB)/obj/$(f:%.c=%.o),$(BUILD)/obj/$(f:%.c=%.o)))
$(TB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DAIRLOCK_TEST_BUILD $(ALL_CFLAGS) $(call pc_cflags,$(SV_PKGS)) $(OBJ_PKG_CFLAGS) -MMD -MP -c -o $@ $<
$(TB)/airlockd: $(call tb_objs,$(AIRLOCKD_SRCS)) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
$(TB)/airlock: $(call tb_objs,$(AIRLOCK_SRCS)) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
$(TB)/airlock-%: $(BUILD)/airlock-%
	@mkdir -p $(dir $@)
	ln -sf ../airlock-$* $@
TEST_PROGS := $(TB)/airlock $(TB)/airlockd $(TB)/airlock-launcher \
	$(TB)/airlock-proxyd $(TB)/airlock-gatewayd
TEST_PROGS += $(TB)/airlock-clone
TEST_PROGS += $(TB)/airlock-fs
# airlock-guard's probe of its own restriction (guard/notify.c): a test
# build of its own, found beside a copy (not a link) of the launcher,
# which looks for the guard beside its /proc/self/exe.
TB_HOOK_SRCS += guard/notify.c
$(TB)/airlock-guard: $(call tb_objs,$(GUARD_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(GUARD_LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --static --libs $(GUARD_PKGS))
$(TB)/airlock-launcher: $(BUILD)/airlock-launcher
	@mkdir -p $(dir $@)
	rm -f $@ && cp $< $@
TEST_PROGS += $(TB)/airlock-guard
# proxyd's switch for edges.sh's control (AIRLOCK_TEST_NO_FAIR_SHARE: no
# reserve, no fair share), in a proxyd of its own beside the test
# airlockd, which starts the helpers it finds beside itself.
TB_HOOK_SRCS += proxyd/session.c
$(TB)/obj/proxyd/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(PROXYD_PKGS))
$(TB)/airlock-proxyd: $(call tb_objs,$(PROXYD_SRCS)) $(LIBPOLICY) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	rm -f $@ && $(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(PROXYD_PKGS))
-include $(shell find $(TB)/obj -name '*.d' 2>/dev/null)
.PHONY: test-bins
test-bins: $(TEST_PROGS)
unit-bins: test-bins

# The Seatbelt profiles' golden files (tests/golden/), rewritten on purpose
# after a deliberate change to common/seatbelt.c; review the diff.
.PHONY: golden
golden: $(BUILD)/tests/test_seatbelt
	CK_FORK=no AIRLOCK_GOLDEN_UPDATE=1 $(BUILD)/tests/test_seatbelt

# supervisor/sv_darwin.c, the macOS spawn, is linked into no Linux
# program; the unit build checks that it compiles as Darwin would build it.
$(BUILD)/tests/sv_darwin.checked: supervisor/sv_darwin.c supervisor/sv_sbpl.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -D__APPLE__ -std=gnu17 $(WARN) $(WERROR) \
	    $(call pc_cflags,$(SV_PKGS)) -fsyntax-only $< && touch $@
unit-bins: $(BUILD)/tests/sv_darwin.checked
