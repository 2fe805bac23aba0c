build-asan/obj/common/http.o: common/http.c common/http.h \
 common/xmalloc.h
common/http.h:
common/xmalloc.h:
