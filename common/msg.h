/* SPDX-License-Identifier: ISC */
/*
 * The one message catalogue (SPEC R-P4).  Every message that can cross a
 * socketpair between airlock's processes is listed in MSG_CATALOGUE: the
 * launcher's and the guard's in common/msg_launch.h (the only part
 * those two link), the daemons' and airlock-clone's below, each with its
 * channel, its direction, its payload schema (common/msgframe.h) and
 * how many fds it carries.  An auditor reads these two files to know
 * everything that can pass.
 * Type ranges: 0x00xx any channel, 0x01xx launcher and guard (msg_launch.h),
 * 0x02xx proxyd, 0x03xx gatewayd, 0x04xx airlock-clone.
 */
#ifndef AIRLOCK_MSG_H
#define AIRLOCK_MSG_H

#include "common/msg_launch.h"

#define MSG_CATALOGUE_HOST(X)						\
	/* ---- proxyd ---- */						\
	X(MSG_PX_SESSION_ADD, 0x0201, MSG_CH_PROXYD, MSG_DOWN, "suuvv", 2,\
	    "session id, flags (PX_F_*), connections the session may hold"\
	    " open at once, allow patterns, deny patterns;"		\
	    " fds: HTTP listener, SOCKS5 listener")			\
	X(MSG_PX_SESSION_DEL, 0x0202, MSG_CH_PROXYD, MSG_DOWN, "s", 0,	\
	    "session id: close its listeners and every tunnel")	\
	X(MSG_PX_MASK, 0x0203, MSG_CH_PROXYD, MSG_DOWN, "sssussS", 0,	\
	    "session id, variable name, host, where (MASK_HEADER,"	\
	    " MASK_QUERY, MASK_BASIC), header or parameter name (\"\""	\
	    " for basic), placeholder, real value (secret): one masked"\
	    " credential (common/pxmask.h checks it), sent before"	\
	    " MSG_PX_MASK_END")						\
	X(MSG_PX_MASK_END, 0x0204, MSG_CH_PROXYD, MSG_DOWN, "sb", 0,	\
	    "session id, the PEM certificates that verify upstream"	\
	    " servers: proxyd makes the session's CA and answers"	\
	    " MSG_PX_CA")						\
	X(MSG_PX_INSPECT, 0x0205, MSG_CH_PROXYD, MSG_DOWN, "sss", 0,	\
	    "session id, host, its method and path rules (one \"allow"\
	    " METHOD PATH\" or \"deny ...\" a line, common/inspect.h):"\
	    " the host's connections are terminated and each request"	\
	    " judged; sent before MSG_PX_MASK_END")			\
	X(MSG_PX_UPSTREAM, 0x0206, MSG_CH_PROXYD, MSG_DOWN, "sssSv", 0,	\
	    "session id, HTTP upstream proxy \"ADDRESS:PORT\" or \"\","\
	    " SOCKS5 upstream or \"\", \"user:password\" for both or"\
	    " \"\" (secret), noProxy patterns: the session's allowed"	\
	    " connections are dialed through them (after"		\
	    " MSG_PX_SESSION_ADD)")					\
	X(MSG_PX_HOSTEP, 0x0207, MSG_CH_PROXYD, MSG_DOWN, "sb", 1,	\
	    "session id, the PEM certificates that verify upstream"	\
	    " servers; fd: the session's host-header endpoint, a"	\
	    " listening unix socket bound into the sandbox (after"	\
	    " MSG_PX_SESSION_ADD)")					\
	X(MSG_PX_VIOLATION, 0x0210, MSG_CH_PROXYD, MSG_UP, "sss", 0,	\
	    "session id, action (network-outbound, network-connections),"\
	    " target host:port or the count refused")			\
	X(MSG_PX_SESSION_FAILED, 0x0211, MSG_CH_PROXYD, MSG_UP, "ss", 0,\
	    "session id, reason: proxyd could not take the session (its"\
	    " listeners arrived truncated or are not listeners); airlockd"\
	    " fails that session alone")				\
	X(MSG_PX_CA, 0x0212, MSG_CH_PROXYD, MSG_UP, "sus", 0,		\
	    "session id, ok, the session CA's certificate in PEM (its"	\
	    " key never leaves proxyd) or why there is none")		\
									\
	/* ---- gatewayd ---- */					\
	X(MSG_GW_RUN_ADD, 0x0301, MSG_CH_GATEWAYD, MSG_DOWN, "s", 1,	\
	    "session id; fd: the run's gateway listener")		\
	X(MSG_GW_RUN_DEL, 0x0302, MSG_CH_GATEWAYD, MSG_DOWN, "s", 0,	\
	    "session id: revoke; later pushes are refused")		\
	X(MSG_GW_REPO_REQ, 0x0310, MSG_CH_GATEWAYD, MSG_UP, "uss", 0,	\
	    "request id, session id, repository path from the URL")	\
	X(MSG_GW_REPO_ANS, 0x0311, MSG_CH_GATEWAYD, MSG_DOWN, "uusss", 0,\
	    "request id, allowed, upstream URL, CA bundle path or \"\","\
	    " reason")							\
	X(MSG_GW_REF_REQ, 0x0312, MSG_CH_GATEWAYD, MSG_UP, "ussu", 0,	\
	    "request id, session id, ref name, GW_REF_* kind")		\
	X(MSG_GW_REF_ANS, 0x0313, MSG_CH_GATEWAYD, MSG_DOWN, "uus", 0,	\
	    "request id, allowed, reason (names the rule)")		\
	X(MSG_GW_TOKEN_REQ, 0x0314, MSG_CH_GATEWAYD, MSG_UP, "uss", 0,	\
	    "request id, session id, repository path")			\
	X(MSG_GW_TOKEN_ANS, 0x0315, MSG_CH_GATEWAYD, MSG_DOWN, "uuS", 0,\
	    "request id, ok, write token for this one push (secret)")	\
	X(MSG_GW_PUSH_DONE, 0x0316, MSG_CH_GATEWAYD, MSG_UP, "ussu", 0,\
	    "request id, session id, summary, GW_DONE_* outcome")	\
	X(MSG_GW_CONN_END, 0x0317, MSG_CH_GATEWAYD, MSG_UP, "s", 0,	\
	    "session id: a connection that asked about a repository"	\
	    " ended (airlockd counts the session's pushes in flight)")	\
									\
	/* ---- airlock-clone (its job is on its command line) ---- */	\
	X(MSG_CL_PROGRESS, 0x0401, MSG_CH_CLONE, MSG_UP, "qqq", 0,	\
	    "files, bytes, entries skipped (at most every 250 ms)")	\
	X(MSG_CL_DONE, 0x0402, MSG_CH_CLONE, MSG_UP, "uqqqqs", 0,	\
	    "errno (0: done), files, bytes, skipped special files,"	\
	    " vanished entries, error sentence or \"\"")

#define MSG_CATALOGUE(X)						\
	MSG_CATALOGUE_LAUNCH(X)						\
	MSG_CATALOGUE_HOST(X)

enum msg_host_type {
	MSG_CATALOGUE_HOST(MSG_ENUM)
};

/* MSG_PX_SESSION_ADD flags */
#define PX_F_NETWORK		(1U << 0)	/* network on (else deny all) */

/* MSG_GW_REF_REQ kinds */
enum gw_ref_kind {
	GW_REF_CREATE = 1,
	GW_REF_UPDATE,
	GW_REF_DELETE,
};

/* MSG_GW_PUSH_DONE outcomes */
enum gw_done {
	GW_DONE_REFUSED = 0,
	GW_DONE_FORWARDED = 1,
	GW_DONE_NOCRED = 2,	/* refused: no write credential */
};

/* Decode a frame held entirely in memory (header + payload, no fds). */
int		 msg_decode_mem(const uint8_t *, size_t, uint8_t chan,
		    uint8_t dir, struct msg *, const char **why);

/* Print a frame readably (secrets redacted) into buf. */
void		 msg_dump(const struct msg *, char *buf, size_t len);

#endif
