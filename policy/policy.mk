# policy/: pure decisions, no I/O. Every .c file here goes into libpolicy.a.
POLICY_SRCS := $(wildcard policy/*.c)
POLICY_OBJS := $(POLICY_SRCS:%.c=$(BUILD)/obj/%.o)
LIBPOLICY := $(BUILD)/libpolicy.a
$(LIBPOLICY): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
