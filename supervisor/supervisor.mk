# supervisor/: airlockd (airlockd.c + sv_*.c) and the airlock client
# (airlock.c + cli_*.c). Files with neither prefix (settings.c, …) are
# linked into both.
SV_SHARED := $(filter-out supervisor/airlockd.c supervisor/airlock.c supervisor/sv_% supervisor/cli_%,$(wildcard supervisor/*.c))
AIRLOCKD_SRCS := supervisor/airlockd.c $(wildcard supervisor/sv_*.c) $(SV_SHARED)
# The client's hook judges paths with the plan's own rule tables.
AIRLOCK_SRCS := supervisor/airlock.c $(wildcard supervisor/cli_*.c) $(SV_SHARED) \
	supervisor/sv_plan.c supervisor/sv_seccomp.c
SV_PKGS := libevent yajl libseccomp
$(BUILD)/obj/supervisor/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(SV_PKGS))

$(BUILD)/airlockd: $(AIRLOCKD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
$(BUILD)/airlock: $(AIRLOCK_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
PROGS += $(BUILD)/airlockd $(BUILD)/airlock
