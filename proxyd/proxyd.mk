# proxyd/: airlock-proxyd, the per-session egress proxies (libevent).
PROXYD_SRCS := $(wildcard proxyd/*.c)
PROXYD_PKGS := libevent libseccomp openssl
$(BUILD)/obj/proxyd/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(PROXYD_PKGS))
$(BUILD)/airlock-proxyd: $(PROXYD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(PROXYD_PKGS))
ifneq ($(PROXYD_SRCS),)
PROGS += $(BUILD)/airlock-proxyd
endif
