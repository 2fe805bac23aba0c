build-asan/obj/common/msg.o: common/msg.c common/log.h common/msg.h \
 common/xmalloc.h
common/log.h:
common/msg.h:
common/xmalloc.h:
