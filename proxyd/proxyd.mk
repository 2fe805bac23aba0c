# proxyd/: airlock-proxyd, the per-session egress proxies (libevent).
# tlsca.c (the per-session CA for credential masking) is built and unit
# tested, and linked into airlock-proxyd once its relay terminates TLS:
# until then the shipped proxy carries neither it nor OpenSSL.
PROXYD_SRCS := $(filter-out proxyd/tlsca.c,$(wildcard proxyd/*.c))
PROXYD_PKGS := libevent libseccomp
$(BUILD)/obj/proxyd/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(PROXYD_PKGS) openssl)
$(BUILD)/airlock-proxyd: $(PROXYD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBPOLICY) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(PROXYD_PKGS))
ifneq ($(PROXYD_SRCS),)
PROGS += $(BUILD)/airlock-proxyd
endif
