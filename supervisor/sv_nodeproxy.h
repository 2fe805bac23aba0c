/* SPDX-License-Identifier: ISC */
#ifndef SV_NODEPROXY_H
#define SV_NODEPROXY_H

/* Where the preload lies inside the sandbox, and its text. */
#define SV_RUN_NODE_PROXY	"/run/airlock/node-proxy.cjs"
extern const char sv_node_proxy_js[];

#endif
