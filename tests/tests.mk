# tests/: check unit tests (one binary per tests/unit/test_<module>.c, each
# with its own main), small C helpers the integration tests run inside
# sandboxes, and libFuzzer targets (built with clang when present).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_PKGS := check yajl libevent libseccomp
$(BUILD)/obj/tests/unit/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(UNIT_PKGS))
# Unit tests may exercise supervisor modules that do no client I/O.  They
# come from an archive, so a test links only the modules it uses (and not
# sv_client.o, which needs airlockd.c's globals).
UNIT_SV_OBJS = $(filter-out %/airlockd.o %/airlock.o,$(AIRLOCKD_SRCS:%.c=$(BUILD)/obj/%.o))
UNIT_SV_LIB := $(BUILD)/libsv_unit.a
$(UNIT_SV_LIB): $(UNIT_SV_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_SV_LIB) $(LIBPOLICY) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(UNIT_PKGS))

HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g -Wall -o $@ $< -lpthread

FUZZ_SRCS := $(wildcard tests/fuzz/*_fuzzer.c)
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE
FUZZ_COMMON := $(filter-out common/evglue.c,$(COMMON_SRCS)) $(POLICY_SRCS)
FUZZERS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
$(BUILD)/fuzz/%_fuzzer: tests/fuzz/%_fuzzer.c $(FUZZ_COMMON)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(call pc_cflags,yajl libevent) -o $@ $< $(FUZZ_COMMON) $(call pc_libs,yajl libevent)

.PHONY: unit-bins fuzz-bins
unit-bins: $(UNIT_TESTS) $(HELPERS)
fuzz-bins:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(FUZZERS); \
	else echo "fuzz: $(FUZZ_CC) not found, fuzz targets not built"; fi
fuzz: fuzz-bins
	@sh tests/fuzz/run.sh $(BUILD) 300
