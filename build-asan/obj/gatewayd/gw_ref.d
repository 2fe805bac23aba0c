build-asan/obj/gatewayd/gw_ref.o: gatewayd/gw_ref.c gatewayd/gw.h \
 common/http.h common/pktline.h
gatewayd/gw.h:
common/http.h:
common/pktline.h:
