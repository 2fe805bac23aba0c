# guard/: airlock-guard, the rule engine of one sandbox (R-L3, R-L4).  The
# sandbox's init execs it from a descriptor (launcher/init.c), inside a
# root that need not show it: so, like the launcher, it is static-pie and
# links libc and libseccomp (for its own restriction, sandbox_self.c)
# only.  The filename rules, the git-state and git config allowlists
# (namerule.c, gitstate.c), reading a command's memory (procpeek.c) and
# the sockets a sandbox bound (sockset.c) are linked here, not in the
# launcher.
GUARD_SRCS := $(wildcard guard/*.c) common/msgframe.c \
	common/msg_launch.c common/log.c \
	common/xmalloc.c common/xstr.c common/namerule.c common/gitstate.c \
	common/procpeek.c common/sockset.c common/sandbox_self.c
GUARD_PKGS := libseccomp
$(BUILD)/obj/guard/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(GUARD_PKGS))
ifeq ($(SANITIZE),)
GUARD_LDFLAGS = -static-pie -Wl,-z,relro,-z,now $(LDFLAGS)
else
GUARD_LDFLAGS = $(ALL_LDFLAGS)
endif
$(BUILD)/airlock-guard: $(GUARD_SRCS:%.c=$(BUILD)/obj/%.o)
	$(CC) $(GUARD_LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --static --libs $(GUARD_PKGS))
PROGS += $(BUILD)/airlock-guard
