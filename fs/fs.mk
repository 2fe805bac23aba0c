# fs/: airlock-fs, the file tools' helper that airlockd execs inside a
# session's sandbox (SPEC R-C6).  It links yajl (the request and answer)
# and PCRE2 (fs.search's patterns), libc and common/ otherwise.
FS_SRCS := fs/main.c fs/resolve.c fs/ops.c fs/walk.c fs/patch.c fs/glob.c
FS_PKGS := yajl libpcre2-8
$(BUILD)/obj/fs/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(FS_PKGS))
$(BUILD)/airlock-fs: $(FS_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(FS_PKGS)) -lpthread
PROGS += $(BUILD)/airlock-fs
