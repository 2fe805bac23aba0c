build-asan/obj/gatewayd/gw_up.o: gatewayd/gw_up.c common/log.h \
 common/xmalloc.h gatewayd/gw.h common/http.h common/pktline.h
common/log.h:
common/xmalloc.h:
gatewayd/gw.h:
common/http.h:
common/pktline.h:
