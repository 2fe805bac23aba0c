build-asan/obj/gatewayd/gw_sandbox.o: gatewayd/gw_sandbox.c common/log.h \
 common/xmalloc.h gatewayd/gw.h common/http.h common/pktline.h
common/log.h:
common/xmalloc.h:
gatewayd/gw.h:
common/http.h:
common/pktline.h:
