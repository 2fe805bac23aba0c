# supervisor/: airlockd alone (airlockd.c, sv_*.c and the modules only
# it links), plus the host-side files it shares with the client
# (common/host/).
# sv_darwin.c is the macOS spawn: in no Linux program (tests/tests.mk
# checks that it compiles).
AIRLOCKD_SRCS := $(filter-out supervisor/gen_% supervisor/sv_darwin.c,\
	$(wildcard supervisor/*.c)) \
	$(HOST_SHARED_SRCS)
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
PROGS += $(BUILD)/airlockd
