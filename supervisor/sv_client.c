// SPDX-License-Identifier: ISC
/*
 * The client socket (SPEC R-P5): JSON-RPC 2.0, one JSON object per line,
 * on a unix socket of mode 0600 in a 0700 directory, with the peer's uid
 * checked (SO_PEERCRED) against ours; or one already-connected socket
 * inherited from the desktop app (`airlockd --fd N`, helper mode).
 * Untrusted: every line from a client.  A line that is not valid JSON-RPC
 * gets a JSON-RPC error and the connection keeps going; a line longer
 * than the cap closes that connection only.  Other clients never notice.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_terminal.h"
#include "supervisor/sv_worktree.h"

#define SV_MAX_LINE	(4U << 20)	/* one request */
/*
 * Flow control, not a dropped client: above SV_OUT_HIGH unread bytes the
 * sessions of this client stop reading their commands' pipes (so the
 * commands' writes block), and read again once the buffer has drained to
 * SV_OUT_LOW.  Output is the only event that can grow without bound.
 */
#define SV_OUT_HIGH	(4U << 20)
#define SV_OUT_LOW	(1U << 20)
#define SV_MAX_CFDS	8	/* fds passed by a client, not yet claimed */
/*
 * A socket that stays up.  Replies and events wait in a
 * client's output buffer: above SV_OUT_HIGH its requests are not read
 * either until it has read its answers, so a client that sends and never
 * reads holds at most that much; past SV_OUT_MAX (events of a session
 * whose pipes could not be paused in time) it is closed.  Connections
 * are capped: SV_MAX_IDLE idle ones (no session, not an approver) per
 * user, SV_MAX_CLIENTS in all; at a cap the idle connection that has
 * done least is closed first (never sent a request, then least recently
 * active), and logged.  When the process is out of descriptors, accept
 * pauses for a moment instead of spinning.
 */
#define SV_OUT_MAX	(64U << 20)
#define SV_MAX_IDLE	128
#define SV_MAX_CLIENTS	512
#define SV_ACCEPT_PAUSE_MS 100

struct sv_client {
	struct sv_client   *next;
	struct bufferevent *bev;
	struct event	   *rev;	/* reads: recvmsg, for passed fds */
	struct evbuffer	   *in;
	int		    fds[SV_MAX_CFDS];
	int		    nfds;
	int		    congested;
	uid_t		    uid;
	int		    exit_on_close;
	int		    alive;
	int		    refs;
	unsigned	    id;
	int		    read_paused; /* output over SV_OUT_HIGH */
	int		    closing;	/* over SV_OUT_MAX: closed soon */
	uint64_t	    requests;	/* complete lines read */
	uint64_t	    active;	/* tick of the last request */
};

static struct sv_client *clients;
static struct evconnlistener *listener;
static char	*sock_path;
static int	 sock_ours;		/* ours to unlink (not systemd's) */
static unsigned	 next_client_id;
static uint64_t	 tick;			/* requests served, in all */
static struct event *accept_timer;

static void	client_close(struct sv_client *);
static void	client_lines(struct sv_client *);

int
sv_client_alive(const struct sv_client *c)
{
	return c != NULL && c->alive;
}

uid_t
sv_client_uid(const struct sv_client *c)
{
	return c->uid;
}

unsigned
sv_client_id(const struct sv_client *c)
{
	return c->id;
}

void
sv_client_ref(struct sv_client *c)
{
	c->refs++;
}

void
sv_client_unref(struct sv_client *c)
{
	if (--c->refs == 0 && !c->alive)
		free(c);
}

static void
client_close_later(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_client *c = arg;

	(void)fd;
	(void)ev;
	client_close(c);
	sv_client_unref(c);
}

static void
client_write(struct sv_client *c, const char *buf, size_t len)
{
	struct evbuffer *out;

	if (c == NULL || !c->alive)
		return;
	if (c->closing)
		return;
	out = bufferevent_get_output(c->bev);
	if (evbuffer_get_length(out) > SV_OUT_MAX) {
		/* Not now: the caller may be in the middle of one of its
		 * sessions' events, which closing would destroy. */
		struct timeval	now = { 0, 0 };

		log_warnx("client %u: over %u bytes of answers and events "
		    "unread: closing it", c->id, SV_OUT_MAX);
		c->closing = 1;
		sv_client_ref(c);
		event_base_once(bufferevent_get_base(c->bev), -1, EV_TIMEOUT,
		    client_close_later, c, &now);
		return;
	}
	evbuffer_add(out, buf, len);
	evbuffer_add(out, "\n", 1);
	if (evbuffer_get_length(out) > SV_OUT_HIGH)
		c->congested = 1;
}

int
sv_client_congested(const struct sv_client *c)
{
	return c != NULL && c->alive && c->congested;
}

/* The output buffer drained to SV_OUT_LOW: output may flow again. */
static void
client_drained(struct bufferevent *bev, void *arg)
{
	struct sv_client *c = arg;

	(void)bev;
	if (c->read_paused && c->alive) {
		c->read_paused = 0;
		event_add(c->rev, NULL);
		client_lines(c);
	}
	if (!c->congested)
		return;
	c->congested = 0;
	sv_client_ref(c);
	sv_sessions_client_drained(c);
	sv_terminals_client_drained(c);
	sv_client_unref(c);
}

/*
 * Take the n fds the client passed (SCM_RIGHTS) with its requests, in
 * the order sent; -1 unless exactly n are waiting.
 */
int
sv_client_take_fds(struct sv_client *c, int *fds, int n)
{
	int	i;

	if (c->nfds != n)
		return -1;
	for (i = 0; i < n; i++)
		fds[i] = c->fds[i];
	c->nfds = 0;
	return 0;
}

static void
client_drop_fds(struct sv_client *c)
{
	while (c->nfds > 0)
		close(c->fds[--c->nfds]);
}

static void
reply(struct sv_client *c, const struct json *id, const char *key,
    const char *json, size_t len)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 blen;
	struct evbuffer	*tmp;

	/* {"jsonrpc":"2.0","id":ID,"result":<json>} with json spliced in. */
	jgen_obj_open(j);
	jgen_kstr(j, "jsonrpc", "2.0");
	jgen_key(j, "id");
	jgen_value(j, id);
	jgen_obj_close(j);
	buf = jgen_buf(j, &blen);
	tmp = evbuffer_new();
	evbuffer_add(tmp, buf, blen - 1);	/* drop the closing brace */
	evbuffer_add_printf(tmp, ",\"%s\":", key);
	evbuffer_add(tmp, json, len);
	evbuffer_add(tmp, "}", 1);
	client_write(c, (const char *)evbuffer_pullup(tmp, -1),
	    evbuffer_get_length(tmp));
	evbuffer_free(tmp);
	jgen_free(j);
}

void
sv_client_result(struct sv_client *c, const struct json *id,
    const char *json, size_t len)
{
	reply(c, id, "result", json, len);
}

void
sv_client_error(struct sv_client *c, const struct json *id, int code,
    const char *message)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kint(j, "code", code);
	jgen_kstr(j, "message", message);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	reply(c, id, "error", buf, len);
	jgen_free(j);
}

void
sv_client_error_data(struct sv_client *c, const struct json *id, int code,
    const char *message, const struct json *data)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kint(j, "code", code);
	jgen_kstr(j, "message", message);
	jgen_key(j, "data");
	jgen_value(j, data);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	reply(c, id, "error", buf, len);
	jgen_free(j);
}

void
sv_client_notify(struct sv_client *c, const char *method, const char *params,
    size_t len)
{
	struct evbuffer	*tmp = evbuffer_new();

	evbuffer_add_printf(tmp, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\","
	    "\"params\":", method);
	evbuffer_add(tmp, params, len);
	evbuffer_add(tmp, "}", 1);
	client_write(c, (const char *)evbuffer_pullup(tmp, -1),
	    evbuffer_get_length(tmp));
	evbuffer_free(tmp);
}

static void
status_answer(struct sv_client *c, const struct json *id)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len, i;
	int		 native = sv_sandbox_on && sv_settings.sandbox_enabled &&
	    sv_host.available;

	jgen_obj_open(j);
	jgen_kbool(j, "available", sv_host.available);
	jgen_kbool(j, "installed", !sv_host.requires_install);
	jgen_kbool(j, "enabled", sv_sandbox_on && sv_settings.sandbox_enabled);
	jgen_kbool(j, "policyLocked", sv_settings.locked != NULL &&
	    sv_settings.locked[0] != NULL);
	jgen_kstr(j, "backend", native ? "native" : "none");
	jgen_kstr(j, "notes", sv_host.notes);
	jgen_kstr(j, "installHint", sv_host.install_hint);
	jgen_kbool(j, "requiresInstall", sv_host.requires_install);
	jgen_key(j, "reasons");
	jgen_arr_open(j);
	for (i = 0; sv_host.reasons && sv_host.reasons[i]; i++)
		jgen_str(j, sv_host.reasons[i]);
	jgen_arr_close(j);
	jgen_kint(j, "landlockAbi", sv_host.landlock_abi);
	jgen_key(j, "landlockGaps");
	jgen_arr_open(j);
	if (sv_host.landlock_abi < 1)
		jgen_str(j, "landlock: no filesystem or network confinement");
	if (sv_host.landlock_abi < 2)
		jgen_str(j, "refer: cross-directory rename/link not mediated");
	if (sv_host.landlock_abi < 3)
		jgen_str(j, "truncate: truncation not mediated");
	if (sv_host.landlock_abi < 4)
		jgen_str(j, "net: TCP connect/bind not mediated (netns only)");
	if (sv_host.landlock_abi < 5)
		jgen_str(j, "ioctl-dev: device ioctls not mediated");
	if (sv_host.landlock_abi < 6)
		jgen_str(j, "scope: abstract unix sockets and signals not "
		    "scoped");
	jgen_arr_close(j);
	jgen_kbool(j, "seccomp", sv_host.seccomp);
	/* kernel.yama.ptrace_scope (-1: no Yama); >= 2 refuses sandboxes. */
	jgen_kint(j, "ptraceScope", sv_host.ptrace_scope);
	jgen_kbool(j, "ptraceBlocked", sv_host.ptrace_blocked);
	jgen_kstr(j, "limits", "rlimits+watchdog (cgroup v2 not used: no "
	    "delegated subtree is assumed)");
	jgen_key(j, "daemons");
	sv_daemons_status(j);
	sv_status_json(j);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	sv_client_result(c, id, buf, len);
	jgen_free(j);
}

/* R-P2: a daemon that is starting is waited for, so that what it
 * applied is shown, not a blank (sv_self.c). */
static void
method_status(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	(void)params;
	sv_self_status(c, id, status_answer);
}

/*
 * The methods: one row each.  A session method (states not 0) is called
 * only when its "sessionId" names a session of this client in one of
 * those states; the others get the params as sent.
 */
static const struct sv_method {
	const char	*name;
	void		(*fn)(struct sv_client *, const struct json *id,
			    const struct json *params);
	unsigned	 states;
} methods[] = {
	{ "host.status",	method_status,		0 },
	{ "sandbox.launch",	sv_session_launch,	0 },
	{ "sandbox.profile",	sv_session_profile,	0 },
	{ "sandbox.exec",	sv_session_exec,
	    SV_SB(ST_CREATED) | SV_SB(ST_WARM) | SV_SB(ST_ACTIVE) },
	{ "sandbox.signal",	sv_session_signal,	SV_SB_ANY },
	{ "sandbox.resize",	sv_session_resize,	SV_SB_ANY },
	{ "sandbox.destroy",	sv_session_destroy,	SV_SB_ANY },
	{ "sandbox.suspend",	sv_session_suspend,
	    SV_SB(ST_WARM) | SV_SB(ST_ACTIVE) },
	{ "sandbox.resume",	sv_session_resume,	SV_SB(ST_SUSPENDED) },
	{ "sandbox.list",	sv_session_list,	0 },
	{ "sandbox.status",	sv_session_status,	0 },
	{ "sandbox.attach",	sv_session_attach,	0 },
	{ "sandbox.input",	sv_session_input,	SV_SB_LIVE },
	{ "approvals.subscribe", sv_approvals_subscribe, 0 },
	{ "approvals.answer",	sv_approvals_answer,	0 },
	{ "approvals.ask",	sv_approvals_ask,	0 },
	{ "terminal.open",	sv_terminal_open,	0 },
	{ "terminal.input",	sv_terminal_input,	0 },
	{ "terminal.resize",	sv_terminal_resize,	0 },
	{ "terminal.close",	sv_terminal_close,	0 },
	{ "worktree.provision",	sv_worktree_provision,	0 },
	{ "worktree.list",	sv_worktree_list,	0 },
	{ "worktree.remove",	sv_worktree_remove,	0 },
	{ "fs.read",		sv_fs_read,		0 },
	{ "fs.write",		sv_fs_write,		0 },
	{ "fs.edit",		sv_fs_edit,		0 },
	{ "fs.applyPatch",	sv_fs_apply_patch,	0 },
	{ "fs.search",		sv_fs_search,		0 },
	{ "fs.find",		sv_fs_find,		0 },
	{ NULL,			NULL,			0 },
};

static void
dispatch_line(struct sv_client *c, const char *line, size_t len)
{
	struct json	*req, *nullid, *part;
	const struct json *id, *params;
	const struct sv_method *m;
	const char	*method, *ver;
	char		 err[256];

	nullid = json_parse("null", 4, err, sizeof(err));
	if ((req = json_parse_partial(line, len, err, sizeof(err),
	    &part)) == NULL) {
		char msg[300];

		/* The id, when it was read whole before the error. */
		id = json_get(part, "id");
		if (id == NULL || (id->type != JSON_STRING &&
		    id->type != JSON_NUMBER))
			id = nullid;
		snprintf(msg, sizeof(msg), "parse error: %s", err);
		sv_client_error(c, id, RPC_PARSE_ERROR, msg);
		json_free(part);
		json_free(nullid);
		return;
	}
	/* Any id comes back as sent, whatever its type. */
	if ((id = json_get(req, "id")) == NULL)
		id = nullid;
	ver = json_get_str(req, "jsonrpc");
	method = json_get_str(req, "method");
	params = json_get(req, "params");
	if (req->type != JSON_OBJECT || ver == NULL ||
	    strcmp(ver, "2.0") != 0 || method == NULL) {
		sv_client_error(c, id, RPC_INVALID_REQUEST, "invalid request: "
		    "expected {\"jsonrpc\":\"2.0\",\"method\":…,\"id\":…}");
		goto out;
	}
	if (params != NULL && params->type != JSON_OBJECT) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "params: expected an object");
		goto out;
	}
	log_debug("client %u: %s", c->id, method);
	for (m = methods; m->name != NULL; m++)
		if (strcmp(method, m->name) == 0)
			break;
	if (m->name == NULL) {
		snprintf(err, sizeof(err), "method not found: %.100s",
		    method);
		sv_client_error(c, id, RPC_METHOD_NOT_FOUND, err);
	} else if (m->states == 0 ||
	    sv_session_check(c, id, params, m->states) == 0)
		m->fn(c, id, params);
out:
	json_free(req);
	json_free(nullid);
}

/* Serve the complete requests waiting in c->in, while it reads answers. */
static void
client_lines(struct sv_client *c)
{
	char	*line;
	size_t	 len;

	sv_client_ref(c);
	while (c->alive && !c->congested && !c->closing &&
	    (line = evbuffer_readln(c->in, &len, EVBUFFER_EOL_LF)) != NULL) {
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len > 0) {
			c->requests++;
			c->active = ++tick;
			dispatch_line(c, line, len);
		}
		free(line);
		/* fds come with their request's first byte: whatever that
		 * request did not claim is closed. */
		if (c->alive)
			client_drop_fds(c);
	}
	/* Answers it has not read: read its requests once it has. */
	if (c->alive && c->congested && !c->read_paused) {
		c->read_paused = 1;
		event_del(c->rev);
	}
	if (c->alive && evbuffer_get_length(c->in) > SV_MAX_LINE) {
		log_warnx("client %u: request line over %u bytes: closing it",
		    c->id, SV_MAX_LINE);
		client_close(c);
	}
	sv_client_unref(c);
}

/*
 * untrusted: bytes and fds from the client.  recvmsg, not the
 * bufferevent's recv, so that fds passed with a request (the pipes of
 * `airlock run`) arrive; more than SV_MAX_CFDS unclaimed, or a truncated
 * control message, closes the connection.
 */
static void
client_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_client *c = arg;
	char		 buf[65536];
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(SV_MAX_CFDS * sizeof(int))];
	} cbuf;
	struct iovec	 iov = { buf, sizeof(buf) };
	struct msghdr	 mh;
	struct cmsghdr	*cm;
	ssize_t		 n;
	size_t		 i, nf;

	(void)ev;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm != NULL;
	    cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS)
			continue;
		nf = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nf; i++) {
			int pfd;

			memcpy(&pfd, CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(int));
			if (c->nfds < SV_MAX_CFDS)
				c->fds[c->nfds++] = pfd;
			else {
				close(pfd);
				mh.msg_flags |= MSG_CTRUNC;
			}
		}
	}
	if (n <= 0 || (mh.msg_flags & MSG_CTRUNC)) {
		if (n > 0)
			log_warnx("client %u: too many fds: closing it",
			    c->id);
		client_close(c);
		return;
	}
	evbuffer_add(c->in, buf, (size_t)n);
	client_lines(c);
}

static void
client_event(struct bufferevent *bev, short what, void *arg)
{
	struct sv_client *c = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		client_close(c);
}

static void
client_close(struct sv_client *c)
{
	struct sv_client **pp;
	int		   quit;

	if (!c->alive)
		return;
	c->alive = 0;
	quit = c->exit_on_close;
	for (pp = &clients; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	sv_sessions_client_gone(c);
	sv_approvals_client_gone(c);
	sv_terminals_client_gone(c);
	event_free(c->rev);
	c->rev = NULL;
	evbuffer_free(c->in);
	c->in = NULL;
	client_drop_fds(c);
	bufferevent_free(c->bev);
	c->bev = NULL;
	log_debug("client %u closed", c->id);
	sv_client_unref(c);
	if (quit)
		sv_quit();
}

static int
client_idle(const struct sv_client *c)
{
	return !c->exit_on_close && !sv_sessions_owned(c) &&
	    !sv_approvals_is_approver(c);
}

/* The idle client that did least: never a request, then the oldest. */
static struct sv_client *
idle_victim(void)
{
	struct sv_client *c, *v = NULL;

	for (c = clients; c != NULL; c = c->next) {
		if (!client_idle(c))
			continue;
		if (v == NULL || (c->requests == 0 && v->requests != 0) ||
		    ((c->requests == 0) == (v->requests == 0) &&
		    c->active < v->active) ||
		    ((c->requests == 0) == (v->requests == 0) &&
		    c->active == v->active && c->id < v->id))
			v = c;
	}
	return v;
}

static int
make_room(const char *why)
{
	struct sv_client *v;

	if ((v = idle_victim()) == NULL)
		return -1;
	log_warnx("client %u: closed, the idle connection that did least "
	    "(%s)", v->id, why);
	client_close(v);
	return 0;
}

void
sv_client_adopt(struct event_base *base, int fd, int exit_on_close)
{
	struct sv_client *c;
	struct ucred	  cred;
	socklen_t	  len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		/* A pipe or socketpair from the app: same user by fork. */
		cred.uid = getuid();
	}
	if (cred.uid != getuid()) {
		log_warnx("refusing a client of uid %u", (unsigned)cred.uid);
		close(fd);
		return;
	}
	{
		struct sv_client *k;
		unsigned	  n = 0, idle = 0;

		for (k = clients; k != NULL; k = k->next, n++)
			idle += client_idle(k);
		if ((idle >= SV_MAX_IDLE && make_room("too many idle "
		    "connections") == -1) || (n >= SV_MAX_CLIENTS &&
		    make_room("too many connections") == -1)) {
			log_warnx("refusing a connection: %u open, none idle",
			    n);
			close(fd);
			return;
		}
	}
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
	c = xcalloc(1, sizeof(*c));
	c->uid = cred.uid;
	c->alive = 1;
	c->refs = 1;
	c->id = ++next_client_id;
	c->exit_on_close = exit_on_close;
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(c->bev, NULL, client_drained, client_event, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, SV_OUT_LOW, 0);
	bufferevent_enable(c->bev, EV_WRITE);
	c->in = evbuffer_new();
	c->rev = event_new(base, fd, EV_READ | EV_PERSIST, client_read, c);
	event_add(c->rev, NULL);
	c->next = clients;
	clients = c;
	log_debug("client %u connected", c->id);
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	(void)l;
	(void)sa;
	(void)salen;
	sv_client_adopt(arg, fd, 0);
}

static void
accept_resume(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	if (listener != NULL)
		evconnlistener_enable(listener);
}

/* Out of descriptors: make room, and pause accept instead of spinning
 * on a connection that cannot be taken. */
static void
accept_error(struct evconnlistener *l, void *arg)
{
	struct timeval	tv = { 0, SV_ACCEPT_PAUSE_MS * 1000 };
	int		e = EVUTIL_SOCKET_ERROR();

	(void)arg;
	if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM) {
		log_warnx("accept: %s", strerror(e));
		return;
	}
	(void)make_room("out of descriptors");
	evconnlistener_disable(l);
	if (accept_timer == NULL)
		accept_timer = evtimer_new(evconnlistener_get_base(l),
		    accept_resume, NULL);
	evtimer_add(accept_timer, &tv);
	log_warnx("accept: %s: pausing for %d ms", strerror(e),
	    SV_ACCEPT_PAUSE_MS);
}

static int
mkdir_private(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return -1;
	if (lstat(dir, &st) == -1)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
sv_client_listen(struct event_base *base, const char *path, int own_dir)
{
	struct sockaddr_un sun;
	char		  *dir, *slash;
	int		   fd;
	mode_t		   old;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	dir = xstrdup(path);
	/* The default directory is ours to create and must stay private; an
	 * explicit --socket names a directory the caller chose. */
	if (own_dir && (slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_private(dir) == -1) {
			log_warn("socket directory %s must be ours and 0700",
			    dir);
			free(dir);
			return -1;
		}
	}
	free(dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	/* A stale socket from a dead airlockd: if nobody answers, remove. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(fd);
		errno = EADDRINUSE;
		return -1;
	}
	close(fd);
	unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return -1;
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		umask(old);
		close(fd);
		return -1;
	}
	umask(old);
	if (chmod(path, 0600) == -1) {
		close(fd);
		return -1;
	}
	listener = evconnlistener_new(base, accept_cb, base,
	    LEV_OPT_CLOSE_ON_FREE, 128, fd);
	if (listener == NULL) {
		close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error);
	sock_path = xstrdup(path);
	sock_ours = 1;
	return 0;
}

/*
 * Socket activation (sd_listen_fds(3), without libsystemd): when
 * LISTEN_PID is this process and LISTEN_FDS is 1, fd 3 is a listening
 * socket systemd made (airlockd.socket).  The variables are removed so
 * that no child takes them for its own.  Returns the fd, -1 when not
 * activated; anything else systemd could have meant is refused.
 */
int
sv_client_activated(char *err, size_t errlen)
{
	const char	*pid_s = getenv("LISTEN_PID");
	const char	*fds_s = getenv("LISTEN_FDS");
	char		*end;
	long		 pid, n;
	int		 v;
	socklen_t	 len = sizeof(v);

	if (pid_s == NULL || fds_s == NULL)
		return -1;
	pid = strtol(pid_s, &end, 10);
	if (*end != '\0' || pid != (long)getpid())
		return -1;	/* meant for another process */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	n = strtol(fds_s, &end, 10);
	if (*end != '\0' || n != 1) {
		snprintf(err, errlen, "socket activation: LISTEN_FDS=%s, "
		    "airlockd takes exactly one socket", fds_s);
		return -2;
	}
	if (getsockopt(3, SOL_SOCKET, SO_DOMAIN, &v, &len) == -1 ||
	    v != AF_UNIX || (len = sizeof(v), getsockopt(3, SOL_SOCKET,
	    SO_TYPE, &v, &len)) == -1 || v != SOCK_STREAM ||
	    (len = sizeof(v), getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &v,
	    &len)) == -1 || v == 0) {
		snprintf(err, errlen, "socket activation: fd 3 is not a "
		    "listening unix stream socket (airlockd.socket needs "
		    "ListenStream= with a path)");
		return -2;
	}
	if (fcntl(3, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(3, F_SETFL, O_NONBLOCK) == -1) {
		snprintf(err, errlen, "socket activation: fcntl: %s",
		    strerror(errno));
		return -2;
	}
	return 3;
}

/* Serve a listening socket made by systemd; its file stays systemd's. */
int
sv_client_listen_fd(struct event_base *base, int fd)
{
	struct sockaddr_un sun;
	socklen_t	   len = sizeof(sun);

	memset(&sun, 0, sizeof(sun));
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return -1;
	listener = evconnlistener_new(base, accept_cb, base,
	    LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (listener == NULL)
		return -1;
	evconnlistener_set_error_cb(listener, accept_error);
	sock_path = xstrndup(sun.sun_path, sizeof(sun.sun_path));
	sock_ours = 0;
	return 0;
}

const char *
sv_client_socket(void)
{
	return sock_path;
}

void
sv_clients_close_all(void)
{
	while (clients != NULL) {
		clients->exit_on_close = 0;
		client_close(clients);
	}
	if (listener != NULL) {
		evconnlistener_free(listener);
		listener = NULL;
	}
	if (accept_timer != NULL) {
		event_free(accept_timer);
		accept_timer = NULL;
	}
	if (sock_path != NULL) {
		if (sock_ours)
			unlink(sock_path);
		free(sock_path);
		sock_path = NULL;
	}
}
