/* SPDX-License-Identifier: ISC */
/*
 * airlock-gatewayd, the git push gateway (SPEC §7, R-G1..R-G6, R-P2).
 *
 * airlockd starts it with the channel on fd 3.  Per run it receives a
 * listening socket made inside the run's network namespace; a connection's
 * run is therefore known from the socket it arrived on, with no secret in
 * the URL.  For each push it asks airlockd whether the repository may be
 * pushed to, what the push rule says for every ref, and for a write token
 * valid for this one push; it holds no policy and no credential of its
 * own.  This file: start-up, self-restriction, the channel to airlockd and
 * the run table.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "gatewayd/gw.h"

struct event_base	*gw_base;
struct evdns_base	*gw_dns;

enum gw_req_kind {
	GW_REQ_REPO = 1,
	GW_REQ_REF,
	GW_REQ_TOKEN,
};

/*
 * A question to airlockd waiting for its answer.  conn is NULL once the
 * connection is gone: a question already sent still holds its place in
 * the window until its answer arrives (and is dropped).
 */
struct gw_req {
	TAILQ_ENTRY(gw_req)	 entry;
	uint32_t		 id;
	enum gw_req_kind	 kind;
	struct gw_conn		*conn;
	size_t			 cmd;
	int			 sent;
	struct msgbuf		 msg;		/* until sent */
};

static struct msg_link		 gw_link;
static struct event		*link_ev;
static TAILQ_HEAD(, gw_session)	 sessions = TAILQ_HEAD_INITIALIZER(sessions);
static TAILQ_HEAD(, gw_req)	 reqs = TAILQ_HEAD_INITIALIZER(reqs);
static uint32_t			 next_reqid = 1;
static size_t			 nsent;		/* unanswered */

int		 gatewayd_main(int, char **);

static void
link_send(struct msgbuf *b)
{
	/* airlockd gone means no answers: nothing can be pushed any more. */
	if (msg_send(&gw_link, b, NULL, 0) == -1)
		fatal("send to airlockd");
	msgbuf_free(b);
}

/*
 * Flow control on the link: at most GW_LINK_WINDOW questions
 * are sent and unanswered at any time; the rest wait here, in order.
 * airlockd answers every question at once, so with a bounded number in
 * flight its answers always fit in the socket buffer and neither side
 * can block in msg_send() waiting for the other to read: a push of any
 * number of refs cannot stall the link that every session shares.
 */
static void
req_pump(void)
{
	struct gw_req	*r;

	TAILQ_FOREACH(r, &reqs, entry) {
		if (nsent >= GW_LINK_WINDOW)
			break;
		if (r->sent)
			continue;
		r->sent = 1;
		nsent++;
		link_send(&r->msg);
	}
}

/* A question built in r->msg by the caller; queued and sent in turn. */
static struct gw_req *
req_new(struct gw_conn *c, enum gw_req_kind kind, size_t cmd,
    uint16_t type)
{
	struct gw_req	*r;

	r = xcalloc(1, sizeof(*r));
	r->id = next_reqid++;
	if (next_reqid == 0)
		next_reqid = 1;
	r->kind = kind;
	r->conn = c;
	r->cmd = cmd;
	msgbuf_init(&r->msg, type);
	msg_put_u32(&r->msg, r->id);
	msg_put_str(&r->msg, c->sess->id);
	return r;
}

static void
req_queue(struct gw_req *r)
{
	TAILQ_INSERT_TAIL(&reqs, r, entry);
	req_pump();
}

/* The question an answer is for; NULL for one not ours (ignored). */
static struct gw_req *
req_take(uint32_t id, enum gw_req_kind kind)
{
	struct gw_req	*r;

	TAILQ_FOREACH(r, &reqs, entry)
		if (r->sent && r->id == id) {
			if (r->kind != kind)
				return NULL;
			TAILQ_REMOVE(&reqs, r, entry);
			nsent--;
			return r;
		}
	return NULL;
}

/* After an answer was handled: its place in the window is free. */
static void
req_done(struct gw_req *r)
{
	free(r);
	req_pump();
}

/* A question about the connection's repository: (id, session, repo). */
static uint32_t
ask_about_repo(struct gw_conn *c, enum gw_req_kind kind, uint16_t type)
{
	struct gw_req	*r = req_new(c, kind, 0, type);
	uint32_t	 id = r->id;

	msg_put_str(&r->msg, c->repo);
	req_queue(r);
	return id;
}

uint32_t
gw_ask_repo(struct gw_conn *c)
{
	c->asked = 1;
	return ask_about_repo(c, GW_REQ_REPO, MSG_GW_REPO_REQ);
}

uint32_t
gw_ask_ref(struct gw_conn *c, size_t cmd)
{
	struct gw_req	*r = req_new(c, GW_REQ_REF, cmd, MSG_GW_REF_REQ);
	uint32_t	 id = r->id, kind;

	switch (c->rq->cmds[cmd].kind) {
	case RP_CREATE:
		kind = GW_REF_CREATE;
		break;
	case RP_DELETE:
		kind = GW_REF_DELETE;
		break;
	default:
		kind = GW_REF_UPDATE;
		break;
	}
	msg_put_str(&r->msg, c->rq->cmds[cmd].ref);
	msg_put_u32(&r->msg, kind);
	req_queue(r);
	return id;
}

uint32_t
gw_ask_token(struct gw_conn *c)
{
	return ask_about_repo(c, GW_REQ_TOKEN, MSG_GW_TOKEN_REQ);
}

/*
 * The connection is going: its unsent questions go with it; sent ones
 * stay (without it) until answered.  airlockd is told the conversation
 * ended, so that it knows which sessions have a push in flight.
 */
void
gw_forget(struct gw_conn *c)
{
	struct gw_req	*r, *t;
	struct msgbuf	 b;

	for (r = TAILQ_FIRST(&reqs); r != NULL; r = t) {
		t = TAILQ_NEXT(r, entry);
		if (r->conn != c)
			continue;
		if (r->sent) {
			r->conn = NULL;
			continue;
		}
		TAILQ_REMOVE(&reqs, r, entry);
		msgbuf_free(&r->msg);
		free(r);
	}
	if (c->asked) {
		c->asked = 0;
		msgbuf_init(&b, MSG_GW_CONN_END);
		msg_put_str(&b, c->sess->id);
		link_send(&b);
	}
}

void
gw_push_done(struct gw_conn *c, const char *summary, enum gw_done outcome)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_GW_PUSH_DONE);
	msg_put_u32(&b, 0);
	msg_put_str(&b, c->sess->id);
	msg_put_str(&b, summary);
	msg_put_u32(&b, (uint32_t)outcome);
	link_send(&b);
}

/* ---- runs ---- */

static struct gw_session *
session_find(const char *id)
{
	struct gw_session *s;

	TAILQ_FOREACH(s, &sessions, entry)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

static void
session_accept(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	(void)l;
	(void)sa;
	(void)salen;
	gw_conn_accept(arg, fd);
}

static void
session_accept_error(struct evconnlistener *l, void *arg)
{
	struct gw_session *s = arg;

	(void)l;
	/* EMFILE and friends: keep the listener, the next accept may work. */
	log_warn("session %s: accept", s->id);
}

static void
session_add(const char *id, int fd)
{
	struct gw_session *s;

	if (session_find(id) != NULL) {
		log_warnx("session %s: already registered; new listener "
		    "refused", id);
		close(fd);
		return;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		log_warn("session %s: listener", id);
		close(fd);
		return;
	}
	s = xcalloc(1, sizeof(*s));
	s->id = xstrdup(id);
	TAILQ_INIT(&s->conns);
	/* Backlog 0: the socket listens already (listen is not allowed). */
	s->listener = evconnlistener_new(gw_base, session_accept, s,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (s->listener == NULL) {
		log_warnx("session %s: cannot listen", id);
		close(fd);
		free(s->id);
		free(s);
		return;
	}
	evconnlistener_set_error_cb(s->listener, session_accept_error);
	TAILQ_INSERT_TAIL(&sessions, s, entry);
	log_info("session %s: gateway registered", id);
}

/* R-G6: revoke.  The listener goes, and so does every open push. */
static void
session_del(const char *id)
{
	struct gw_session *s;
	struct gw_conn	*c;

	if ((s = session_find(id)) == NULL) {
		log_warnx("session %s: not registered", id);
		return;
	}
	while ((c = TAILQ_FIRST(&s->conns)) != NULL)
		gw_conn_free(c);
	evconnlistener_free(s->listener);
	TAILQ_REMOVE(&sessions, s, entry);
	log_info("session %s: gateway revoked", id);
	free(s->id);
	free(s);
}

/* ---- the channel to airlockd ---- */

static void
dispatch_airlockd(struct msg *m)
{
	struct gw_req	*r;
	const char	*sid, *url, *ca, *reason;
	char		*token;
	uint32_t	 id, ok;

	switch (m->info->type) {
	case MSG_GW_RUN_ADD:
		sid = msg_get_str(m);
		session_add(sid, msg_take_fd(m, 0));
		break;
	case MSG_GW_RUN_DEL:
		session_del(msg_get_str(m));
		break;
	case MSG_GW_REPO_ANS:
		id = msg_get_u32(m);
		ok = msg_get_u32(m);
		url = msg_get_str(m);
		ca = msg_get_str(m);
		reason = msg_get_str(m);
		if ((r = req_take(id, GW_REQ_REPO)) == NULL)
			break;
		if (r->conn != NULL)
			gw_conn_repo_answer(r->conn, ok != 0, url, ca, reason);
		req_done(r);
		break;
	case MSG_GW_REF_ANS:
		id = msg_get_u32(m);
		ok = msg_get_u32(m);
		reason = msg_get_str(m);
		if ((r = req_take(id, GW_REQ_REF)) == NULL)
			break;
		if (r->conn != NULL)
			gw_conn_ref_answer(r->conn, r->cmd, ok != 0, reason);
		req_done(r);
		break;
	case MSG_GW_TOKEN_ANS:
		id = msg_get_u32(m);
		ok = msg_get_u32(m);
		/* The payload is zeroed by msg_free(); our copy by the
		 * connection once the Authorization header is written. */
		token = xstrdup(msg_get_str(m));
		if ((r = req_take(id, GW_REQ_TOKEN)) == NULL) {
			freezero_str(token);
			break;
		}
		if (r->conn != NULL)
			gw_conn_token_answer(r->conn, ok != 0, token);
		else
			freezero_str(token);
		req_done(r);
		break;
	case MSG_SHUTDOWN:
		log_info("shutdown requested");
		event_base_loopexit(gw_base, NULL);
		break;
	default:
		log_warnx("unexpected %s from airlockd", m->info->name);
		break;
	}
}

static void
link_read(evutil_socket_t fd, short ev, void *arg)
{
	struct msg	m;

	(void)fd;
	(void)ev;
	(void)arg;
	for (;;) {
		switch (msg_recv(&gw_link, &m)) {
		case MSG_AGAIN:
			return;
		case MSG_EOF:
			/* Without airlockd no push can be decided. */
			log_info("airlockd closed the channel: exiting");
			exit(0);
		case MSG_ERROR:
		case MSG_FDS_LOST:	/* not asked for (trunc_ok) */
			fatalx("invalid frame from airlockd");
		case MSG_OK:
			dispatch_airlockd(&m);
			msg_free(&m);
			break;
		}
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: airlock-gatewayd [-d] [-C ca-bundle]...\n");
	exit(2);
}

int
gatewayd_main(int argc, char **argv)
{
	struct msgbuf	  b;
	char		**cafiles = NULL, *summary;
	int		  ch, debug = 0;

	while ((ch = getopt(argc, argv, "C:d")) != -1) {
		switch (ch) {
		case 'C':
			cafiles = strv_add(cafiles, optarg);
			break;
		case 'd':
			debug = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init("gatewayd", debug);

	/* ---- initialise: everything that needs a file happens here ---- */
	if (fcntl(MSG_CHILD_FD, F_GETFD) == -1)
		fatalx("no channel on fd %d: started by airlockd only",
		    MSG_CHILD_FD);
	if (fcntl(MSG_CHILD_FD, F_SETFL, O_NONBLOCK) == -1)
		fatal("channel");
	signal(SIGPIPE, SIG_IGN);
	/* The time zone file is read once, now (certificate times, logs). */
	tzset();
	/* The CA store is read now: after restricting, no file can be. */
	if (gw_tls_init(cafiles) == -1)
		fatalx("cannot load the CA store");
	strv_free(cafiles);
	if ((gw_base = event_base_new()) == NULL)
		fatalx("event_base_new");
	/* resolv.conf and hosts are read once, now, for the same reason. */
	gw_dns = evdns_base_new(gw_base, EVDNS_BASE_INITIALIZE_NAMESERVERS |
	    EVDNS_BASE_DISABLE_WHEN_INACTIVE);
	if (gw_dns == NULL)
		fatalx("evdns_base_new");

	/* ---- restrict self (R-P2) ---- */
	summary = gw_restrict_self();

	/* ---- event loop ---- */
	msg_link_init(&gw_link, MSG_CHILD_FD, MSG_CH_GATEWAYD, MSG_DOWN,
	    "airlockd");
	msgbuf_init(&b, MSG_HELLO);
	msg_put_u32(&b, (uint32_t)getpid());
	msg_put_str(&b, summary);
	link_send(&b);
	log_info("ready (%s)", summary);
	free(summary);
	link_ev = event_new(gw_base, MSG_CHILD_FD, EV_READ | EV_PERSIST,
	    link_read, NULL);
	event_add(link_ev, NULL);
	event_base_dispatch(gw_base);
	return 0;
}


int
main(int argc, char **argv)
{
	return gatewayd_main(argc, argv);
}
