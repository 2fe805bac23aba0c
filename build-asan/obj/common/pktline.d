build-asan/obj/common/pktline.o: common/pktline.c common/pktline.h \
 common/xmalloc.h
common/pktline.h:
common/xmalloc.h:
