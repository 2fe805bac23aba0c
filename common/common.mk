# common/: framing, logging, allocation (libc only: the launcher links
# msg.c and log.c) and the JSON and event-loop helpers (yajl, libevent).
# msg_launch.c is the launcher's and the guard's message table; the
# others link msg.c's, the whole catalogue's.
COMMON_SRCS := $(filter-out common/msg_launch.c,$(wildcard common/*.c))
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/obj/%.o)
LIBCOMMON := $(BUILD)/libcommon.a
$(BUILD)/obj/common/%.o: OBJ_PKG_CFLAGS = $(call pc_cflags,yajl libevent openssl)
$(LIBCOMMON): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# common/host/: host-side pieces both airlockd and the airlock client link
# as objects (settings, runtime paths, workspace origins, the hook's judge
# and the protection tables). Never linked by the launcher or the daemons
# that serve a sandbox.
HOST_SHARED_SRCS := $(wildcard common/host/*.c)
