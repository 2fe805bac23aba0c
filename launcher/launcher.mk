# launcher/: airlock-launcher. It links libc, libcap and a
# few libc-only files of common/ (msg.c: the one frame validator; log.c;
# xmalloc.c; namerule.c, gitstate.c: the filename rules of R-L3/R-L4;
# procpeek.c; fdpass.c) -- no yajl, no libevent, no
# libseccomp: the supervisor compiles the BPF program.
LAUNCHER_SRCS := $(wildcard launcher/*.c) common/msg.c common/log.c common/xmalloc.c \
	common/namerule.c common/gitstate.c common/procpeek.c common/fdpass.c
LAUNCHER_PKGS := libcap
$(BUILD)/obj/launcher/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(LAUNCHER_PKGS))
$(BUILD)/airlock-launcher: $(LAUNCHER_SRCS:%.c=$(BUILD)/obj/%.o)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(LAUNCHER_PKGS))
PROGS += $(BUILD)/airlock-launcher

# tests/helpers/launch_drive plays airlockd's part towards the launcher; it
# speaks the real framing, so it links the same three libc-only files.
$(BUILD)/tests/helpers/launch_drive: tests/helpers/launch_drive.c common/msg.c common/log.c common/xmalloc.c common/msg.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g $(WARN) $(WERROR) -o $@ $(filter %.c,$^)
