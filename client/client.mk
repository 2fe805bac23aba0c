# client/: the airlock command people and the app run (airlock.c,
# cli_*.c), plus the host-side files it shares with airlockd
# (common/host/). It links neither airlockd's modules nor the launcher's.
AIRLOCK_SRCS := $(wildcard client/*.c) $(HOST_SHARED_SRCS)
$(BUILD)/obj/client/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(SV_PKGS))
$(BUILD)/airlock: $(AIRLOCK_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
PROGS += $(BUILD)/airlock

# The client alone under AddressSanitizer, in $(BUILD)/asan/airlock
# (tests/integration/asks.sh runs `airlock approve` with it): only the
# client's own objects are instrumented, the libraries link as they are,
# so it costs a fraction of a SANITIZE=address build of everything.
ASAN_CLIENT := $(BUILD)/asan/airlock
ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer $(SANFLAGS)
$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g $(WARN) $(WERROR) $(ASAN_FLAGS) \
	    $(call pc_cflags,$(SV_PKGS)) $(CFLAGS) -MMD -MP -c -o $@ $<
$(ASAN_CLIENT): $(AIRLOCK_SRCS:%.c=$(BUILD)/asan/obj/%.o) $(LIBPOLICY) \
    $(LIBCOMMON)
	$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
.PHONY: asan-client
asan-client: $(ASAN_CLIENT)
-include $(shell find $(BUILD)/asan/obj -name '*.d' 2>/dev/null)

# The AppArmor profile `airlock setup` writes, from contrib/apparmor/, as
# a C string literal the client carries (the installed client needs no
# data file to find).
APPARMOR_PROFILE_H := $(BUILD)/gen/apparmor_profile.h
$(APPARMOR_PROFILE_H): contrib/apparmor/airlock-launcher.in
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
	    $< >$@
$(BUILD)/obj/client/cli_setup.o $(BUILD)/asan/obj/client/cli_setup.o: \
    CPPFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/client/cli_setup.o $(BUILD)/asan/obj/client/cli_setup.o: \
    $(APPARMOR_PROFILE_H)
