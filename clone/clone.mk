# clone/: airlock-clone, the copy-on-write copier airlockd starts per
# worktree copy (libc, pthreads and libseccomp for sandbox_self).
CLONE_SRCS := $(wildcard clone/*.c)
CLONE_PKGS := libseccomp
$(BUILD)/obj/clone/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(CLONE_PKGS))
$(BUILD)/airlock-clone: $(CLONE_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(CLONE_PKGS)) -lpthread
ifneq ($(CLONE_SRCS),)
PROGS += $(BUILD)/airlock-clone
endif
