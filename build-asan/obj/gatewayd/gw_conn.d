build-asan/obj/gatewayd/gw_conn.o: gatewayd/gw_conn.c common/log.h \
 common/xmalloc.h gatewayd/gw.h common/http.h common/pktline.h
common/log.h:
common/xmalloc.h:
gatewayd/gw.h:
common/http.h:
common/pktline.h:
