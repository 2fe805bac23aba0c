# client/: the airlock command people and the app run (airlock.c,
# cli_*.c), plus the host-side files it shares with airlockd
# (common/host/). It links neither airlockd's modules nor the launcher's.
AIRLOCK_SRCS := $(wildcard client/*.c) $(HOST_SHARED_SRCS)
$(BUILD)/obj/client/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(SV_PKGS))
$(BUILD)/airlock: $(AIRLOCK_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
PROGS += $(BUILD)/airlock
