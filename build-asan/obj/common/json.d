build-asan/obj/common/json.o: common/json.c common/json.h common/log.h \
 common/xmalloc.h
common/json.h:
common/log.h:
common/xmalloc.h:
