build-asan/obj/gatewayd/main.o: gatewayd/main.c common/log.h common/msg.h \
 common/xmalloc.h gatewayd/gw.h common/http.h common/pktline.h
common/log.h:
common/msg.h:
common/xmalloc.h:
gatewayd/gw.h:
common/http.h:
common/pktline.h:
