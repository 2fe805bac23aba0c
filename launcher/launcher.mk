# launcher/: airlock-launcher. It links libc, libcap (both static) and a
# few libc-only files of common/ (msgframe.c: the one frame validator;
# msg_launch.c: the table of its own messages; log.c; xmalloc.c) --
# no yajl, no libevent, no libseccomp, and no
# rule tables: the BPF program is compiled when airlock is built
# (supervisor/gen_seccomp.c) and comes in the plan; the filename rules
# go on to airlock-guard (guard/).
LAUNCHER_SRCS := $(wildcard launcher/*.c) common/msgframe.c \
	common/msg_launch.c common/log.c common/xmalloc.c
LAUNCHER_PKGS := libcap
$(BUILD)/obj/launcher/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(LAUNCHER_PKGS))
# Linked static-pie (docs/DECISIONS.md): still position
# independent (ASLR), full RELRO and BIND_NOW, but no dynamic linker at
# each start: the launcher starts once per sandbox, and loading libc and
# libcap through ld.so cost more on this VM than all it does before the
# plan.  Sanitizer builds cannot link static-pie: those stay dynamic.
ifeq ($(SANITIZE),)
LAUNCHER_LDFLAGS = -static-pie -Wl,-z,relro,-z,now $(LDFLAGS)
else
LAUNCHER_LDFLAGS = $(ALL_LDFLAGS)
endif
$(BUILD)/airlock-launcher: $(LAUNCHER_SRCS:%.c=$(BUILD)/obj/%.o)
	$(CC) $(LAUNCHER_LDFLAGS) -o $@ $^ $(call pc_libs,$(LAUNCHER_PKGS))
PROGS += $(BUILD)/airlock-launcher

# tests/helpers/launch_drive plays airlockd's part towards the launcher; it
# speaks the real framing, so it links the same three libc-only files.
$(BUILD)/tests/helpers/launch_drive: tests/helpers/launch_drive.c common/msgframe.c common/msgframe_more.c common/msg.c common/log.c common/xmalloc.c common/xstr.c common/msg.h common/msg_launch.h common/msgframe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g $(WARN) $(WERROR) -o $@ $(filter %.c,$^)
