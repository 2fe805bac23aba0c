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

# The copier's property test links the copier alone (tests/helpers/).
$(BUILD)/tests/helpers/clone_prop: tests/helpers/clone_prop.c clone/copier.c clone/copier.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g -Wall -Wextra $(SANFLAGS) -o $@ tests/helpers/clone_prop.c clone/copier.c -lpthread
