# gatewayd/: airlock-gatewayd, the git push gateway (libevent, OpenSSL).
# It links no policy/ code: the gateway judges nothing itself (airlockd
# does); what it checks is protocol (pkt-lines, ref-name syntax: common/).
GATEWAYD_SRCS := $(wildcard gatewayd/*.c)
GATEWAYD_PKGS := libevent libevent_openssl openssl libseccomp zlib
$(BUILD)/obj/gatewayd/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,$(GATEWAYD_PKGS))
$(BUILD)/airlock-gatewayd: $(GATEWAYD_SRCS:%.c=$(BUILD)/obj/%.o) $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pc_libs,$(GATEWAYD_PKGS))
ifneq ($(GATEWAYD_SRCS),)
PROGS += $(BUILD)/airlock-gatewayd
endif

# gw_drive plays airlockd's part in the gateway's own tests: it speaks the
# message catalogue, so it links libcommon (the generic helper rule links
# nothing).
$(BUILD)/tests/helpers/gw_drive: tests/helpers/gw_drive.c $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu17 -O1 -g -Wall -Wextra $(SANFLAGS) -o $@ $< $(LIBCOMMON)
