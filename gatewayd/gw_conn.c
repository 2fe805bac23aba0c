/* SPDX-License-Identifier: ISC */
/*
 * One connection from the sandbox's git to the gateway (R-G2..R-G5).
 *
 *   GET  /<repo>/info/refs?service=git-receive-pack
 *        ask airlockd for the repo -> ask for a token -> relay upstream's
 *        ref advertisement, or answer with an ERR packet git prints.
 *   POST /<repo>/git-receive-pack
 *        read the command list (chunked and gzip bodies decoded) -> ask
 *        the push rule for every ref -> forward upstream with a write
 *        token, streaming the rest of the body, or read the rest of the
 *        body and answer git with "ng <ref> airlock policy: ..." for every
 *        ref.
 *
 * Every byte read here is untrusted: it comes from the sandbox, where the
 * agent may send anything instead of git.  Nothing the client sends is
 * forwarded as is: upstream gets a request head we write, the command list
 * we re-encode from what we parsed (minus push options), and the pack.
 * Every connection answers one request and is closed.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/refname.h"
#include "common/xmalloc.h"
#include "gatewayd/gw.h"

#define REFUSED_OTHER	"airlock policy: not pushed because another ref " \
			"in this push was refused"
#define POLICY_PREFIX	"airlock policy: "
#define NOCRED		"no write credential for this code host"

static void	client_read(struct bufferevent *, void *);
static void	refuse_over_limit(struct gw_conn *);
static void	client_write(struct bufferevent *, void *);
static void	client_event(struct bufferevent *, short, void *);
static void	body_process(struct gw_conn *);

void
gw_conn_accept(struct gw_session *s, int fd)
{
	struct gw_conn	*c;
	struct timeval	 tv = { GW_HEAD_TIMEOUT, 0 };
	int		 one = 1;

	if (s->nconns >= GW_MAX_CONNS) {
		log_warnx("session %s: over %d connections: refused", s->id,
		    GW_MAX_CONNS);
		evutil_closesocket(fd);
		return;
	}
	/* Small answers (a report, a probe's 200) go out at once. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = xcalloc(1, sizeof(*c));
	c->sess = s;
	c->pending = evbuffer_new();
	c->cbev = bufferevent_socket_new(gw_base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->cbev == NULL || c->pending == NULL) {
		log_warnx("session %s: cannot set up a connection", s->id);
		if (c->cbev == NULL)
			evutil_closesocket(fd);
		gw_conn_free(c);
		return;
	}
	TAILQ_INSERT_TAIL(&s->conns, c, entry);
	s->nconns++;
	c->in_list = 1;
	bufferevent_setcb(c->cbev, client_read, client_write, client_event, c);
	bufferevent_set_max_single_read(c->cbev, GW_IO_CHUNK);
	bufferevent_set_max_single_write(c->cbev, GW_IO_CHUNK);
	bufferevent_set_timeouts(c->cbev, &tv, NULL);
	bufferevent_enable(c->cbev, EV_READ | EV_WRITE);
}

void
gw_conn_free(struct gw_conn *c)
{
	size_t	i;

	if (c == NULL)
		return;
	gw_forget(c);
	if (c->in_list) {
		TAILQ_REMOVE(&c->sess->conns, c, entry);
		c->sess->nconns--;
	}
	if (c->cbev != NULL)
		bufferevent_free(c->cbev);
	if (c->ubev != NULL)
		bufferevent_free(c->ubev);
	if (c->pending != NULL)
		evbuffer_free(c->pending);
	if (c->answer != NULL)
		evbuffer_free(c->answer);
	if (c->resp_head != NULL)
		evbuffer_free(c->resp_head);
	if (c->zs_init)
		inflateEnd(&c->zs);
	if (c->reasons != NULL) {
		for (i = 0; c->rq != NULL && i < c->rq->ncmds; i++)
			free(c->reasons[i]);
		free(c->reasons);
	}
	if (c->allowed != NULL) {
		for (i = 0; c->rq != NULL && i < c->rq->ncmds; i++)
			free(c->allowed[i]);
		free(c->allowed);
	}
	rp_request_free(c->rq);
	free(c->refusal);
	freezero_str(c->token);
	free(c->repo);
	free(c->user_agent);
	free(c->ca_path);
	gw_url_free(&c->up);
	free(c);
}

/*
 * untrusted: a sandbox can make refusals as fast as it can connect.  One
 * line per GW_LOG_INTERVAL per session, saying how many were not logged.
 */
void
gw_log_refusal(struct gw_session *s, const char *fmt, ...)
{
	va_list	 ap;
	char	*line;
	time_t	 now = time(NULL);

	if (s->log_at != 0 && now - s->log_at < GW_LOG_INTERVAL) {
		s->log_quiet++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) == -1)
		line = NULL;
	va_end(ap);
	if (s->log_quiet > 0)
		log_info("%s (and %u more refusals in the last %lds)",
		    line ? line : "refused", s->log_quiet,
		    (long)(now - s->log_at));
	else
		log_info("%s", line ? line : "refused");
	free(line);
	s->log_at = now;
	s->log_quiet = 0;
}

/* ---- answering the client ---- */

static void
set_closing(struct gw_conn *c)
{
	c->state = GW_ST_CLOSING;
	bufferevent_disable(c->cbev, EV_READ);
	if (c->ubev != NULL) {
		bufferevent_free(c->ubev);
		c->ubev = NULL;
	}
	gw_forget(c);
	if (evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0)
		gw_conn_free(c);
}

static void
send_response(struct gw_conn *c, int status, const char *ctype,
    const void *body, size_t len)
{
	struct evbuffer	*out = bufferevent_get_output(c->cbev);

	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: %s\r\n"
	    "Content-Length: %zu\r\n"
	    "Cache-Control: no-cache\r\n"
	    "Connection: close\r\n\r\n", status, http_status_text(status),
	    ctype, len);
	if (len > 0)
		evbuffer_add(out, body, len);
}

void
gw_conn_http_error(struct gw_conn *c, int status, const char *text)
{
	char	*s;

	xasprintf(&s, "airlock gateway: %s\n", text);
	gw_log_refusal(c->sess, "session %s: %s %s: %d %s", c->sess->id,
	    c->repo ? c->repo : "-", c->kind == GW_K_ADVERTISE ?
	    "advertise" : "push", status, text);
	send_response(c, status, "text/plain", s, strlen(s));
	free(s);
	set_closing(c);
}

/*
 * A refusal git prints: a ref advertisement carrying an ERR packet makes
 * git die with "remote error: <text>" before it sends anything.
 */
static void
refuse_advertisement(struct gw_conn *c, const char *reason)
{
	struct pkt_buf	pb = { 0 };

	gw_log_refusal(c->sess, "session %s: %s: advertisement refused: %s",
	    c->sess->id, c->repo, reason);
	pkt_putf(&pb, "# service=git-receive-pack\n");
	pkt_put_flush(&pb);
	pkt_putf(&pb, "ERR %.900s", reason);
	send_response(c, 200, "application/x-git-receive-pack-advertisement",
	    pb.data, pb.len);
	pkt_buf_free(&pb);
	set_closing(c);
}

static char *
policy_reason(const char *reason)
{
	char	*s;

	if (strncmp(reason, POLICY_PREFIX, strlen(POLICY_PREFIX)) == 0)
		return xstrdup(reason);
	xasprintf(&s, POLICY_PREFIX "%s", reason[0] ? reason : "refused");
	return s;
}

static void
summarise(struct gw_conn *c, const char *what, enum gw_done outcome)
{
	char	*s = NULL, *t;
	size_t	 i;

	xasprintf(&s, "%s %s:", what, c->repo);
	for (i = 0; c->rq != NULL && i < c->rq->ncmds && strlen(s) < 3000;
	    i++) {
		xasprintf(&t, "%s %s %s%s%s%s", s, rp_kind_name(
		    c->rq->cmds[i].kind), c->rq->cmds[i].ref,
		    c->reasons && c->reasons[i] ? " (" : "",
		    c->reasons && c->reasons[i] ? c->reasons[i] : "",
		    c->reasons && c->reasons[i] ? ")" : "");
		free(s);
		s = t;
	}
	if (c->rq != NULL && c->rq->noptions > 0) {
		xasprintf(&t, "%s; %zu push option(s) not forwarded", s,
		    c->rq->noptions);
		free(s);
		s = t;
	}
	if (outcome == GW_DONE_FORWARDED)
		log_info("session %s: %s", c->sess->id, s);
	else
		gw_log_refusal(c->sess, "session %s: %s", c->sess->id, s);
	gw_push_done(c, s, outcome);
	free(s);
}

/* The whole body is read: send what was prepared and close. */
static void
drain_done(struct gw_conn *c)
{
	size_t	len = evbuffer_get_length(c->answer);

	send_response(c, 200, "application/x-git-receive-pack-result",
	    evbuffer_pullup(c->answer, -1), len);
	set_closing(c);
}

/*
 * Read the rest of the body before answering: git writes the whole
 * request before it reads, so an early answer and close would reach it as
 * a broken pipe instead of the report.
 */
static void
start_drain(struct gw_conn *c)
{
	evbuffer_drain(c->pending, evbuffer_get_length(c->pending));
	c->state = GW_ST_DRAIN;
	if (c->body_done) {
		drain_done(c);
		return;
	}
	bufferevent_enable(c->cbev, EV_READ);
	body_process(c);
}

void
gw_conn_refuse_push(struct gw_conn *c, const char *reason)
{
	struct pkt_buf	pb = { 0 };
	size_t		i;

	/* Nothing of a refused push goes upstream, not even a question. */
	if (c->ubev != NULL) {
		bufferevent_free(c->ubev);
		c->ubev = NULL;
	}
	for (i = 0; i < c->rq->ncmds; i++)
		if (c->reasons[i] == NULL)
			c->reasons[i] = xstrdup(reason);
	rp_report_refusal(&pb, c->rq, (const char *const *)c->reasons);
	c->answer = evbuffer_new();
	evbuffer_add(c->answer, pb.data, pb.len);
	pkt_buf_free(&pb);
	summarise(c, "push refused", c->nocred ? GW_DONE_NOCRED :
	    GW_DONE_REFUSED);
	start_drain(c);
}

/* ---- decisions ---- */

/*
 * One refused ref refuses the whole push, --atomic or not: forwarding the
 * other refs would send upstream the pack, and with it the objects of the
 * refused ref (R-G3: nothing of a refused push reaches upstream; a code
 * host may serve a dangling object by its id).  The other refs say why.
 */
static void
decide(struct gw_conn *c)
{
	if (c->refused) {
		gw_conn_refuse_push(c, REFUSED_OTHER);
		return;
	}
	c->state = GW_ST_WAIT_TOKEN;
	gw_ask_token(c);
}

static void
commands_done(struct gw_conn *c)
{
	struct rp_request *rq = c->rq;
	size_t		 i, asked = 0;

	bufferevent_disable(c->cbev, EV_READ);
	if (rq->ncmds == 0) {
		/*
		 * git's probe POST (a lone flush before a large chunked
		 * body) and any empty push: 200 and an empty result, and
		 * upstream is not contacted.
		 */
		c->answer = evbuffer_new();
		start_drain(c);
		return;
	}
	c->reasons = xcalloc(rq->ncmds, sizeof(char *));
	c->allowed = xcalloc(rq->ncmds, sizeof(char *));
	if (c->refusal != NULL) {
		gw_conn_refuse_push(c, c->refusal);
		return;
	}
	for (i = 0; i < rq->ncmds; i++) {
		/*
		 * untrusted: a name git itself would refuse is refused
		 * before a rule sees it, so that refs/heads//main cannot
		 * walk around a rule for refs/heads/main.
		 */
		if (strncmp(rq->cmds[i].ref, "refs/", 5) != 0 ||
		    !refname_valid(rq->cmds[i].ref)) {
			c->reasons[i] = xstrdup(POLICY_PREFIX
			    "invalid ref name");
			c->refused = 1;
			c->nanswers++;
		}
	}
	if (c->refused && (rq->capflags & RP_CAP_ATOMIC)) {
		gw_conn_refuse_push(c, REFUSED_OTHER);
		return;
	}
	c->state = GW_ST_WAIT_REFS;
	for (i = 0; i < rq->ncmds; i++)
		if (c->reasons[i] == NULL) {
			gw_ask_ref(c, i);
			asked++;
		}
	if (asked == 0)
		decide(c);
}

void
gw_conn_ref_answer(struct gw_conn *c, size_t i, int allowed,
    const char *reason)
{
	if (c->state != GW_ST_WAIT_REFS || i >= c->rq->ncmds ||
	    c->reasons[i] != NULL)
		return;
	if (!allowed) {
		c->reasons[i] = policy_reason(reason);
		c->refused = 1;
	} else
		c->allowed[i] = xstrdup(reason);
	if (++c->nanswers == c->rq->ncmds)
		decide(c);
}

void
gw_conn_repo_answer(struct gw_conn *c, int allowed, const char *url,
    const char *ca, const char *reason)
{
	const char	*why;
	char		*r;

	if (c->state != GW_ST_WAIT_REPO)
		return;
	if (allowed && gw_url_parse(url, &c->up, &why) == -1) {
		log_warnx("session %s: upstream URL for %s: %s", c->sess->id,
		    c->repo, why);
		allowed = 0;
		reason = "the code host's upstream URL is invalid";
	}
	if (!allowed) {
		r = policy_reason(reason);
		if (c->kind == GW_K_ADVERTISE) {
			refuse_advertisement(c, r);
			free(r);
			return;
		}
		/* Read the commands, so every ref gets the reason. */
		c->refusal = r;
	} else
		c->ca_path = xstrdup(ca);
	if (c->kind == GW_K_ADVERTISE) {
		c->state = GW_ST_WAIT_TOKEN;
		gw_ask_token(c);
		return;
	}
	c->state = GW_ST_COMMANDS;
	c->rq = rp_request_new();
	if (c->expect_continue)
		evbuffer_add_printf(bufferevent_get_output(c->cbev),
		    "HTTP/1.1 100 Continue\r\n\r\n");
	bufferevent_enable(c->cbev, EV_READ);
	body_process(c);
}

/*
 * No write credential for this code host.  Upstream is not asked for its
 * refs (that needs the token), yet the user should learn what the push
 * rules say of the refs they push, as with a credential.  So git gets an
 * advertisement of an empty repository, with the capabilities the
 * gateway parses: it then sends its commands (every ref as a create; a
 * delete git refuses itself), each ref is judged by its rule, and the
 * push is refused, nothing of it upstream (refuse_nocred()).
 */
static void
advertise_blind(struct gw_conn *c)
{
	static const char caps[] = "report-status report-status-v2 "
	    "delete-refs side-band-64k quiet atomic ofs-delta "
	    "agent=airlock-gateway";
	struct pkt_buf	 pb = { 0 };
	char		 line[160];
	int		 n;

	gw_log_refusal(c->sess, "session %s: %s: no write credential: empty "
	    "advertisement, the push will be refused", c->sess->id, c->repo);
	n = snprintf(line, sizeof(line), "%040d capabilities^{}%c%s\n", 0,
	    '\0', caps);
	pkt_putf(&pb, "# service=git-receive-pack\n");
	pkt_put_flush(&pb);
	pkt_put(&pb, line, (size_t)n);
	pkt_put_flush(&pb);
	send_response(c, 200, "application/x-git-receive-pack-advertisement",
	    pb.data, pb.len);
	pkt_buf_free(&pb);
	set_closing(c);
}

/*
 * Every ref was allowed by its push rule, but there is no write token:
 * each ref's refusal says so and names the rule that allowed it.
 */
static void
refuse_nocred(struct gw_conn *c)
{
	size_t	i;

	c->nocred = 1;
	for (i = 0; i < c->rq->ncmds; i++)
		if (c->reasons[i] == NULL)
			xasprintf(&c->reasons[i], "airlock gateway: %s; with "
			    "one: %s", NOCRED, c->allowed[i] != NULL ?
			    c->allowed[i] : "allowed");
	gw_conn_refuse_push(c, "airlock gateway: " NOCRED);
}

/* The push is decided: connect upstream and forward it. */
static void
start_push(struct gw_conn *c)
{
	struct pkt_buf	 pb = { 0 };
	const char	*why = NULL;
	char		*r;
	int		 rv;

	rv = gw_up_start(c, c->token, &why);
	freezero_str(c->token);
	c->token = NULL;
	if (rv == -1) {
		xasprintf(&r, "airlock gateway: %s", why);
		gw_conn_refuse_push(c, r);
		free(r);
		return;
	}
	c->state = GW_ST_UPSTREAM;
	summarise(c, "push forwarded", GW_DONE_FORWARDED);
	/*
	 * Push options are dropped: a code host may act on them (open a
	 * merge request, skip CI), which the push rules do not cover.
	 */
	rp_request_rewrite(&pb, c->rq, RP_CAP_PUSH_OPTIONS);
	gw_up_send_body(c, pb.data, pb.len);
	pkt_buf_free(&pb);
	while (evbuffer_get_length(c->pending) > 0) {
		struct evbuffer_iovec v;

		evbuffer_peek(c->pending, -1, NULL, &v, 1);
		gw_up_send_body(c, v.iov_base, v.iov_len);
		evbuffer_drain(c->pending, v.iov_len);
	}
	if (c->body_done) {
		gw_up_end_body(c);
		return;
	}
	bufferevent_enable(c->cbev, EV_READ);
	body_process(c);
}

void
gw_conn_token_answer(struct gw_conn *c, int ok, char *token)
{
	const char	*why = NULL;
	char		*r;
	int		 rv = -1;

	if (c->state != GW_ST_WAIT_TOKEN) {
		freezero_str(token);
		return;
	}
	if ((!ok || token[0] == '\0') && c->kind == GW_K_ADVERTISE) {
		freezero_str(token);
		advertise_blind(c);
		return;
	}
	if (!ok || token[0] == '\0') {
		freezero_str(token);
		refuse_nocred(c);
		return;
	} else if (c->kind == GW_K_ADVERTISE) {
		rv = gw_up_start(c, token, &why);
		freezero_str(token);
	} else {
		/*
		 * Before the push: which of the refs it updates are
		 * symbolic refs upstream.  The token is kept
		 * for the push itself, zeroed when that starts.
		 */
		c->token = token;
		c->state = GW_ST_SYMREFS;
		rv = gw_up_lsrefs(c, c->token, &why);
	}
	if (rv == -1) {
		xasprintf(&r, "airlock gateway: %s", why);
		if (c->kind == GW_K_ADVERTISE)
			refuse_advertisement(c, r);
		else
			gw_conn_refuse_push(c, r);
		free(r);
		return;
	}
	if (c->kind == GW_K_ADVERTISE)
		c->state = GW_ST_UPSTREAM;
}

/*
 * A ref the push names may be a symbolic ref upstream, whose update
 * moves its target (refs/heads/alias -> refs/heads/main would move main
 * under a rule that allows every branch).  Such an update is refused:
 * git's receive-pack follows the link, code hosts differ, and the
 * branch itself can be pushed by its name under its own rule.
 */
void
gw_conn_symrefs(struct gw_conn *c, const uint8_t *p, size_t len,
    const char *why)
{
	char	**pairs = NULL, *r;
	size_t	  i, j;

	if (c->state != GW_ST_SYMREFS)
		return;
	if (why != NULL || rp_lsrefs_symrefs(p, len, &pairs, &why) == -1) {
		/* Unknown links could move anything: fail closed. */
		log_warnx("session %s: %s: %s", c->sess->id, c->repo, why);
		xasprintf(&r, "airlock gateway: cannot check the code host's "
		    "symbolic refs: %s", why);
		gw_conn_refuse_push(c, r);
		free(r);
		return;
	}
	for (i = 0; i < c->rq->ncmds; i++)
		for (j = 0; pairs[j] != NULL; j += 2)
			if (strcmp(pairs[j], c->rq->cmds[i].ref) == 0 &&
			    strcmp(pairs[j + 1], pairs[j]) != 0) {
				xasprintf(&c->reasons[i], POLICY_PREFIX "%s is "
				    "a symbolic ref upstream (to %.200s): "
				    "push to that ref itself", pairs[j],
				    pairs[j + 1]);
				c->refused = 1;
				break;
			}
	strv_free(pairs);
	if (c->refused) {
		gw_conn_refuse_push(c, REFUSED_OTHER);
		return;
	}
	start_push(c);
}

/* ---- the request body (untrusted: from the sandbox) ---- */

/*
 * A push over a per-push limit (refs, bytes of commands): no more of it
 * is parsed or kept; the rest of the body is read and dropped, and git
 * gets an "unpack" error it prints, failing every ref.  Nothing is asked
 * of airlockd and nothing reaches upstream.
 */
static void
refuse_over_limit(struct gw_conn *c)
{
	struct pkt_buf	 pb = { 0 };
	char		*r;

	r = policy_reason(c->rq->err);
	rp_report_unpack_error(&pb, c->rq, r);
	c->answer = evbuffer_new();
	evbuffer_add(c->answer, pb.data, pb.len);
	pkt_buf_free(&pb);
	gw_log_refusal(c->sess, "session %s: %s: push refused: %s",
	    c->sess->id, c->repo, r);
	gw_push_done(c, r, GW_DONE_REFUSED);
	free(r);
	evbuffer_drain(c->pending, evbuffer_get_length(c->pending));
	c->state = GW_ST_DRAIN;
}

/* Decoded body bytes: after chunked and gzip decoding. */
static int
deliver_decoded(struct gw_conn *c, const uint8_t *p, size_t n)
{
	size_t	used;

	if (n == 0)
		return 0;
	switch (c->state) {
	case GW_ST_UPSTREAM:
		gw_up_send_body(c, p, n);
		return 0;
	case GW_ST_DRAIN:
		return 0;
	case GW_ST_COMMANDS:
		if (c->rq->state == RP_COMMANDS ||
		    c->rq->state == RP_OPTIONS) {
			used = rp_request_feed(c->rq, p, n);
			if (c->rq->state == RP_FAILED && c->rq->over_limit) {
				refuse_over_limit(c);
				return 0;
			}
			if (c->rq->state == RP_FAILED) {
				c->err = c->rq->err;
				return -1;
			}
			p += used;
			n -= used;
		}
		break;
	default:
		break;
	}
	/* Pack bytes read before the decision: kept until it is made. */
	if (n > 0)
		evbuffer_add(c->pending, p, n);
	return 0;
}

static int
deliver(struct gw_conn *c, const uint8_t *p, size_t n)
{
	uint8_t	out[16384];
	int	zr;

	if (c->state == GW_ST_DRAIN)
		return 0;
	if (!c->gzip)
		return deliver_decoded(c, p, n);
	c->zs.next_in = (uint8_t *)p;
	c->zs.avail_in = (uInt)n;
	while (c->zs.avail_in > 0 && !c->zs_end) {
		c->zs.next_out = out;
		c->zs.avail_out = sizeof(out);
		zr = inflate(&c->zs, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			c->err = "invalid gzip body";
			return -1;
		}
		if (zr == Z_STREAM_END)
			c->zs_end = 1;
		if (deliver_decoded(c, out, sizeof(out) - c->zs.avail_out)
		    == -1)
			return -1;
		if (zr == Z_BUF_ERROR && c->zs.avail_out != 0)
			break;
	}
	if (c->zs.avail_in > 0 && c->zs_end) {
		c->err = "bytes after the end of the gzip body";
		return -1;
	}
	return 0;
}

static int
body_reading(const struct gw_conn *c)
{
	return c->state == GW_ST_COMMANDS || c->state == GW_ST_UPSTREAM ||
	    c->state == GW_ST_DRAIN;
}

static void
body_process(struct gw_conn *c)
{
	struct evbuffer	*in = bufferevent_get_input(c->cbev);
	struct evbuffer_iovec v;
	enum http_chunk_result cr;
	size_t		 n, used, datalen;
	uint8_t		*p;
	int		 move;

	while (!c->body_done && body_reading(c) &&
	    !(c->state == GW_ST_COMMANDS && c->rq->state == RP_DONE)) {
		/* Pause forwarding while upstream is behind (R-G5). */
		if (c->state == GW_ST_UPSTREAM && c->ubev != NULL &&
		    evbuffer_get_length(bufferevent_get_output(c->ubev)) >
		    GW_BUF_HIGH) {
			bufferevent_disable(c->cbev, EV_READ);
			return;
		}
		if (c->body == HTTP_BODY_NONE) {
			c->body_done = 1;
			break;
		}
		if (evbuffer_get_length(in) == 0)
			return;
		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
			return;
		p = v.iov_base;
		n = v.iov_len;
		/*
		 * Forwarding a plain body: the pack moves from the client's
		 * buffer to upstream's without a copy (R-G5, speed).
		 */
		move = c->state == GW_ST_UPSTREAM && !c->gzip;
		if (c->body == HTTP_BODY_LENGTH) {
			if (move) {
				n = evbuffer_get_length(in);
				if (n > c->body_left)
					n = (size_t)c->body_left;
				gw_up_move_body(c, in, n);
			} else {
				if (n > c->body_left)
					n = (size_t)c->body_left;
				if (deliver(c, p, n) == -1)
					goto bad;
				evbuffer_drain(in, n);
			}
			c->body_left -= n;
			if (c->body_left == 0)
				c->body_done = 1;
			continue;
		}
		cr = http_chunked_feed(&c->chunked, p, n, &used, &datalen);
		if (cr == HTTP_CHUNK_ERROR) {
			c->err = c->chunked.why;
			goto bad;
		}
		if (cr == HTTP_CHUNK_DATA && move) {
			evbuffer_drain(in, used - datalen);
			gw_up_move_body(c, in, datalen);
		} else {
			if (cr == HTTP_CHUNK_DATA && deliver(c,
			    p + used - datalen, datalen) == -1)
				goto bad;
			evbuffer_drain(in, used);
		}
		if (cr == HTTP_CHUNK_DONE)
			c->body_done = 1;
	}
	if (c->state == GW_ST_COMMANDS && c->rq->state == RP_DONE) {
		commands_done(c);
		return;
	}
	if (!c->body_done)
		return;
	/* Anything after the body is not ours to read: one request. */
	bufferevent_disable(c->cbev, EV_READ);
	switch (c->state) {
	case GW_ST_COMMANDS:
		c->err = "the push request ended inside the command list";
		goto bad;
	case GW_ST_DRAIN:
		drain_done(c);
		return;
	case GW_ST_UPSTREAM:
		gw_up_end_body(c);
		return;
	default:
		return;
	}
	return;
bad:
	gw_conn_http_error(c, 400, c->err ? c->err : "malformed request");
	return;
}

/* ---- the request head ---- */

/* "acme/app.git": letters, digits and ._- in non-empty segments. */
static int
repo_path_ok(const char *s, size_t len)
{
	size_t	i, seg = 0;

	if (len == 0 || len > 255)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '/') {
			if (seg == 0)
				return 0;
			seg = 0;
			continue;
		}
		if (seg == 0 && s[i] == '.')
			return 0;
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return 0;
		seg++;
	}
	return seg > 0;
}

static void
route(struct gw_conn *c, const struct http_request *r)
{
	const char	*path = r->path, *q, *ua, *ce, *ct, *ex;
	size_t		 plen;
	static const char adv[] = "/info/refs";
	static const char rp[] = "/git-receive-pack";
	struct timeval	 tv = { GW_IO_TIMEOUT, 0 };

	if (r->form != HTTP_FORM_ORIGIN) {
		gw_conn_http_error(c, 400, "origin-form requests only");
		return;
	}
	q = strchr(path, '?');
	plen = q != NULL ? (size_t)(q - path) : strlen(path);
	if (strstr(path, "git-upload-pack") != NULL) {
		gw_conn_http_error(c, 403, "fetches do not go through the "
		    "push gateway");
		return;
	}
	if (strcmp(r->method, "GET") == 0 && plen > sizeof(adv) &&
	    memcmp(path + plen - (sizeof(adv) - 1), adv, sizeof(adv) - 1)
	    == 0 && q != NULL && strcmp(q, "?service=git-receive-pack") == 0) {
		c->kind = GW_K_ADVERTISE;
		plen -= sizeof(adv) - 1;
	} else if (strcmp(r->method, "POST") == 0 && q == NULL &&
	    plen > sizeof(rp) && memcmp(path + plen - (sizeof(rp) - 1), rp,
	    sizeof(rp) - 1) == 0) {
		c->kind = GW_K_RECEIVE_PACK;
		plen -= sizeof(rp) - 1;
	} else {
		gw_conn_http_error(c, 404, "only git smart-HTTP push is "
		    "served here");
		return;
	}
	/* path starts with '/' (origin form). */
	if (!repo_path_ok(path + 1, plen - 1)) {
		gw_conn_http_error(c, 404, "not a repository path");
		return;
	}
	c->repo = xstrndup(path + 1, plen - 1);
	ua = http_header_get(r->hdrs, r->nhdrs, "User-Agent");
	if (ua != NULL && strlen(ua) < 200 && strncmp(ua, "git/", 4) == 0)
		c->user_agent = xstrdup(ua);
	if (c->kind == GW_K_ADVERTISE) {
		if (r->body != HTTP_BODY_NONE) {
			gw_conn_http_error(c, 400, "GET with a body");
			return;
		}
	} else {
		ct = http_header_get(r->hdrs, r->nhdrs, "Content-Type");
		if (ct == NULL || strcmp(ct,
		    "application/x-git-receive-pack-request") != 0) {
			gw_conn_http_error(c, 415, "not a receive-pack "
			    "request");
			return;
		}
		ce = http_header_get(r->hdrs, r->nhdrs, "Content-Encoding");
		if (ce != NULL && strcasecmp(ce, "gzip") == 0) {
			if (inflateInit2(&c->zs, 16 + MAX_WBITS) != Z_OK) {
				gw_conn_http_error(c, 500, "zlib");
				return;
			}
			c->zs_init = 1;
			c->gzip = 1;
		} else if (ce != NULL && strcasecmp(ce, "identity") != 0) {
			gw_conn_http_error(c, 415, "unsupported "
			    "Content-Encoding");
			return;
		}
		ex = http_header_get(r->hdrs, r->nhdrs, "Expect");
		if (ex != NULL && strcasecmp(ex, "100-continue") == 0)
			c->expect_continue = 1;
		c->body = r->body;
		c->body_left = r->content_length;
		if (c->body == HTTP_BODY_CHUNKED) {
			http_chunked_init(&c->chunked);
			/* git's chunks are curl's upload buffer (at most
			 * 2 MiB): a larger one is refused at its size line,
			 * not waited for until the I/O timeout. */
			c->chunked.max_chunk = GW_CHUNK_MAX;
		}
		if (c->body == HTTP_BODY_LENGTH && c->body_left == 0)
			c->body = HTTP_BODY_NONE;
	}
	bufferevent_disable(c->cbev, EV_READ);
	bufferevent_set_timeouts(c->cbev, &tv, &tv);
	c->state = GW_ST_WAIT_REPO;
	gw_ask_repo(c);
}

static void
read_head(struct gw_conn *c)
{
	struct evbuffer		*in = bufferevent_get_input(c->cbev);
	struct http_request	 r;
	const char		*why;
	size_t			 len, hl;
	uint8_t			*p;

	len = evbuffer_get_length(in);
	if (len > HTTP_HEAD_MAX)
		len = HTTP_HEAD_MAX;
	p = evbuffer_pullup(in, (ssize_t)len);
	switch (http_head_scan(p, len, &hl)) {
	case HTTP_SCAN_MORE:
		if (len >= HTTP_HEAD_MAX)
			gw_conn_http_error(c, 431, "request head too large");
		return;
	case HTTP_SCAN_ERROR:
		gw_conn_http_error(c, 400, "malformed request head");
		return;
	case HTTP_SCAN_DONE:
		break;
	}
	if (http_request_parse(p, hl, &r, &why) == -1) {
		gw_conn_http_error(c, 400, why);
		return;
	}
	evbuffer_drain(in, hl);
	route(c, &r);
	http_request_free(&r);
}

/* ---- libevent callbacks ---- */

static void
client_read(struct bufferevent *bev, void *arg)
{
	struct gw_conn	*c = arg;

	(void)bev;
	switch (c->state) {
	case GW_ST_HEAD:
		read_head(c);
		break;
	case GW_ST_COMMANDS:
	case GW_ST_UPSTREAM:
	case GW_ST_DRAIN:
		body_process(c);
		break;
	default:
		/* Not reading now: the bytes wait in the buffer. */
		bufferevent_disable(c->cbev, EV_READ);
		break;
	}
}

static void
client_write(struct bufferevent *bev, void *arg)
{
	struct gw_conn	*c = arg;

	if (c->state == GW_ST_CLOSING) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			gw_conn_free(c);
		return;
	}
	if (c->state == GW_ST_UPSTREAM)
		gw_up_resume(c);
}

static void
client_event(struct bufferevent *bev, short what, void *arg)
{
	struct gw_conn	*c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT)
		log_info("session %s: connection timed out", c->sess->id);
	else if ((what & BEV_EVENT_ERROR) && c->state != GW_ST_CLOSING)
		log_debug("session %s: client connection error",
		    c->sess->id);
	gw_conn_free(c);
}

void
gw_conn_resume_body(struct gw_conn *c)
{
	if (c->state != GW_ST_UPSTREAM || c->body_done)
		return;
	bufferevent_enable(c->cbev, EV_READ);
	body_process(c);
}

void
gw_conn_upstream_done(struct gw_conn *c)
{
	set_closing(c);
}
