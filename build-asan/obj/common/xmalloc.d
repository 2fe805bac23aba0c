build-asan/obj/common/xmalloc.o: common/xmalloc.c common/log.h \
 common/xmalloc.h
common/log.h:
common/xmalloc.h:
