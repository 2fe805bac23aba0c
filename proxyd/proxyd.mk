# proxyd/: airlock-proxyd, the per-session egress proxies (libevent), and
# TLS termination toward masked hosts (OpenSSL through libevent_openssl's
# bufferevents, so the one event loop stays non-blocking).
PROXYD_SRCS := $(wildcard proxyd/*.c)
PROXYD_PKGS := libevent libevent_openssl openssl libseccomp
$(BUILD)/obj/proxyd/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(PROXYD_PKGS))
$(BUILD)/airlock-proxyd: $(PROXYD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(PROXYD_PKGS))
ifneq ($(PROXYD_SRCS),)
PROGS += $(BUILD)/airlock-proxyd
endif
