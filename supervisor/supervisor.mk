# supervisor/: airlockd (airlockd.c + sv_*.c) and the airlock client
# (airlock.c + cli_*.c). Files with neither prefix (settings.c, …) are
# linked into both.
SV_SHARED := $(filter-out supervisor/airlockd.c supervisor/airlock.c supervisor/sv_% supervisor/cli_% supervisor/gen_%,$(wildcard supervisor/*.c))
AIRLOCKD_SRCS := supervisor/airlockd.c $(wildcard supervisor/sv_*.c) $(SV_SHARED)
# The client's hook judges paths with the plan's own rule tables.
AIRLOCK_SRCS := supervisor/airlock.c $(wildcard supervisor/cli_*.c) $(SV_SHARED) \
	supervisor/sv_plan.c supervisor/sv_seccomp.c
SV_PKGS := libevent yajl
$(BUILD)/obj/supervisor/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(SV_PKGS))

# The sandbox's seccomp program, compiled with libseccomp at build time
# (supervisor/gen_seccomp.c) and embedded: neither airlockd nor the
# client links libseccomp.
$(BUILD)/gen_seccomp: supervisor/gen_seccomp.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(call pc_cflags,libseccomp) \
	    $(ALL_LDFLAGS) -o $@ $< $(call pc_libs,libseccomp)
$(BUILD)/gen/seccomp_bpf.h: $(BUILD)/gen_seccomp
	@mkdir -p $(dir $@)
	$(BUILD)/gen_seccomp > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/supervisor/sv_seccomp.o $(BUILD)/test/obj/supervisor/sv_seccomp.o: \
    $(BUILD)/gen/seccomp_bpf.h
$(BUILD)/obj/supervisor/sv_seccomp.o $(BUILD)/test/obj/supervisor/sv_seccomp.o: \
    CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/airlockd: $(AIRLOCKD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
$(BUILD)/airlock: $(AIRLOCK_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(SV_PKGS))
PROGS += $(BUILD)/airlockd $(BUILD)/airlock
