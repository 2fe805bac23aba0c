// SPDX-License-Identifier: ISC
/*
 * Framing over SOCK_STREAM socketpairs, with fd passing, and the one
 * validator (SPEC R-P4).  Libc only: the launcher links this file, so that
 * airlockd and the launcher can never disagree on what a valid frame is.
 *
 * Reads never cross a frame boundary: the header is read first, then
 * exactly the payload.  Senders attach fds to the first byte of a frame,
 * so fds can only arrive while a header is being read; fds arriving at
 * any other time, more or fewer fds than the catalogue declares, and a
 * truncated control message are all errors that close the link.
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msgframe.h"
#include "common/xmalloc.h"

#define MSG_SEND_TIMEOUT_MS	5000	/* a peer that stops reading is dead */

void
msg_link_init(struct msg_link *l, int fd, uint8_t chan, uint8_t recv_dir,
    const char *peer)
{
	*l = (struct msg_link){ .fd = fd, .chan = chan, .recv_dir = recv_dir,
	    .peer = peer };
}

/* ---- building ---- */

void
msgbuf_init(struct msgbuf *b, uint16_t type)
{
	*b = (struct msgbuf){ .type = type };
	if (msg_type_lookup(type) == NULL)
		fatalx("msgbuf_init: unknown type 0x%04x", type);
}

void
msgbuf_free(struct msgbuf *b)
{
	if (b->data != NULL) {
		explicit_bzero(b->data, b->len);	/* may hold a secret */
		free(b->data);
	}
	b->data = NULL;
	b->len = b->cap = 0;
}

void
msgbuf_append(struct msgbuf *b, const void *p, size_t n)
{
	if (b->len + n > MSG_MAX_PAYLOAD)
		fatalx("%s: payload over %u bytes", msg_type_name(b->type),
		    MSG_MAX_PAYLOAD);
	if (b->len + n > b->cap) {
		size_t	ncap = b->cap ? b->cap : 256;
		uint8_t	*nd;

		while (ncap < b->len + n)
			ncap *= 2;
		nd = xmalloc(ncap);
		if (b->data != NULL) {
			memcpy(nd, b->data, b->len);
			explicit_bzero(b->data, b->len);
			free(b->data);
		}
		b->data = nd;
		b->cap = ncap;
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

/*
 * The next field of t's schema, which must be one of kinds: building or
 * reading fields out of schema order is our bug, and fatal.
 */
static void
schema_next(const struct msg_type_info *t, int *field, const char *kinds)
{
	char	c = t->schema[*field];

	if (c == '\0' || strchr(kinds, c) == NULL)
		fatalx("%s: field %d is '%c', not one of \"%s\"", t->name,
		    *field, c ? c : '0', kinds);
	(*field)++;
}

void
msgbuf_expect(struct msgbuf *b, const char *kinds)
{
	schema_next(msg_type_lookup(b->type), &b->field, kinds);
}

void
msg_put_u32(struct msgbuf *b, uint32_t v)
{
	msgbuf_expect(b, "u");
	msgbuf_append(b, &v, sizeof(v));
}

void
msg_put_u64(struct msgbuf *b, uint64_t v)
{
	msgbuf_expect(b, "q");
	msgbuf_append(b, &v, sizeof(v));
}

void
msgbuf_put_string(struct msgbuf *b, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;

	msgbuf_append(b, &n, sizeof(n));
	msgbuf_append(b, s, n);
}

void
msg_put_str(struct msgbuf *b, const char *s)
{
	msgbuf_expect(b, "sS");
	msgbuf_put_string(b, s != NULL ? s : "");
}

/* ---- sending ---- */

static int
wait_fd(int fd, short ev)
{
	struct pollfd pfd = { .fd = fd, .events = ev };
	int	r;

	do {
		r = poll(&pfd, 1, MSG_SEND_TIMEOUT_MS);
	} while (r == -1 && errno == EINTR);
	if (r == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return r < 0 ? -1 : 0;
}

/* A frame we are about to send is what the catalogue says (our bug if
 * not, fatal); its header in hdr. */
void
msg_frame_hdr(struct msg_link *l, struct msgbuf *b, int nfds,
    struct msg_hdr *hdr)
{
	const struct msg_type_info *t = msg_type_lookup(b->type);

	if (t->schema[b->field] != '\0')
		fatalx("%s: sent with %d of %zu fields", t->name, b->field,
		    strlen(t->schema));
	if (nfds != t->nfds)
		fatalx("%s: sent with %d fds, catalogue says %d", t->name,
		    nfds, t->nfds);
	if ((t->chans & l->chan) == 0 || (t->dir & l->recv_dir) != 0)
		fatalx("%s: not allowed on the %s link in this direction",
		    t->name, l->peer);
	memset(hdr, 0, sizeof(*hdr));
	hdr->type = b->type;
	hdr->version = MSG_VERSION;
	hdr->nfds = (uint8_t)nfds;
	hdr->len = (uint32_t)b->len;
}

int
msg_send(struct msg_link *l, struct msgbuf *b, const int *fds, int nfds)
{
	struct msg_hdr	 hdr;
	struct iovec	 iov[2];
	struct msghdr	 mh;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * MSG_MAX_FDS)];
	} cmsgbuf;
	size_t		 total, sent = 0, h;
	ssize_t		 n;

	msg_frame_hdr(l, b, nfds, &hdr);
	if (l->fd == -1) {
		errno = EPIPE;
		return -1;
	}
	total = sizeof(hdr) + b->len;

	while (sent < total) {
		/* What is left of the header (maybe nothing), then of the
		 * payload. */
		h = sent < sizeof(hdr) ? sent : sizeof(hdr);
		iov[0].iov_base = (char *)&hdr + h;
		iov[0].iov_len = sizeof(hdr) - h;
		iov[1].iov_base = b->data != NULL ? b->data + (sent - h) : NULL;
		iov[1].iov_len = b->len - (sent - h);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = 2;
		if (sent == 0 && nfds > 0) {
			memset(&cmsgbuf, 0, sizeof(cmsgbuf));
			mh.msg_control = cmsgbuf.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cmsgbuf.hdr.cmsg_level = SOL_SOCKET;
			cmsgbuf.hdr.cmsg_type = SCM_RIGHTS;
			cmsgbuf.hdr.cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(&cmsgbuf.hdr), fds,
			    sizeof(int) * nfds);
		}
		n = sendmsg(l->fd, &mh, MSG_NOSIGNAL);
		if (n >= 0)
			sent += (size_t)n;
		else if (errno == EAGAIN) {
			if (wait_fd(l->fd, POLLOUT) == -1)
				return -1;	/* the peer stopped reading */
		} else if (errno != EINTR)
			return -1;
	}
	return 0;
}

int
msg_send_empty(struct msg_link *l, uint16_t type)
{
	struct msgbuf	b;
	int		r;

	msgbuf_init(&b, type);
	r = msg_send(l, &b, NULL, 0);
	msgbuf_free(&b);
	return r;
}

/* ---- validation ---- */

static int
check_string(const uint8_t *p, size_t len, size_t *off, const char **why)
{
	uint32_t n;

	if (len - *off < sizeof(n)) {
		*why = "string length truncated";
		return -1;
	}
	memcpy(&n, p + *off, sizeof(n));
	*off += sizeof(n);
	if (n == 0)
		*why = "string without terminator";
	else if (n > len - *off)
		*why = "string longer than frame";
	else if (p[*off + n - 1] != '\0')
		*why = "string not NUL-terminated";
	else if (memchr(p + *off, '\0', n - 1) != NULL)
		*why = "string with interior NUL";
	else {
		*off += n;
		return 0;
	}
	return -1;
}

int
msg_validate(const struct msg_type_info *t, const uint8_t *p, size_t len,
    const char **why)
{
	size_t		off = 0;
	const char	*s;
	uint32_t	n, i;

	for (s = t->schema; *s != '\0'; s++) {
		switch (*s) {
		case 'u':
		case 'q':
			n = *s == 'u' ? 4 : 8;
			if (len - off < n) {
				*why = "number field truncated";
				return -1;
			}
			off += n;
			break;
		case 's':
		case 'S':
			if (check_string(p, len, &off, why) == -1)
				return -1;
			break;
		case 'b':
		case 'v':
			if (len - off < 4) {
				*why = "blob length or vector count truncated";
				return -1;
			}
			memcpy(&n, p + off, 4);
			off += 4;
			if (*s == 'b' && n > len - off) {
				*why = "blob longer than frame";
				return -1;
			}
			if (*s == 'v' && n > MSG_MAX_STRV) {
				*why = "vector too long";
				return -1;
			}
			if (*s == 'b')
				off += n;
			for (i = 0; *s == 'v' && i < n; i++)
				if (check_string(p, len, &off, why) == -1)
					return -1;
			break;
		default:
			*why = "bad schema";
			return -1;
		}
	}
	if (off != len) {
		*why = "trailing bytes after the last field";
		return -1;
	}
	return 0;
}

int
msg_check_header(const struct msg_hdr *h, uint8_t chan, uint8_t dir,
    const struct msg_type_info **tp, const char **why)
{
	const struct msg_type_info *t = msg_type_lookup(h->type);

	if (h->version != MSG_VERSION)
		*why = "unknown protocol version";
	else if (t == NULL)
		*why = "unknown message type";
	else if ((t->chans & chan) == 0)
		*why = "message not allowed on this channel";
	else if ((t->dir & dir) == 0)
		*why = "message not allowed in this direction";
	else if (h->len > MSG_MAX_PAYLOAD)
		*why = "payload too large";
	else if (h->nfds != t->nfds)
		*why = "fd count differs from the catalogue";
	else {
		*tp = t;
		return 0;
	}
	return -1;
}

/* ---- receiving ---- */

static void
close_fds(int *fds, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (fds[i] != -1)
			close(fds[i]);
}

/*
 * Read up to want bytes into the link's buffer.  Returns bytes read, 0 on
 * EOF, -1 on error (errno), -2 for EAGAIN.  fds received are appended to
 * the link's fd queue; a truncated control message is an error.
 */
static ssize_t
link_read(struct msg_link *l, size_t want, const char **why)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * MSG_MAX_FDS)];
	} cmsgbuf;
	struct iovec	iov;
	struct msghdr	mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cmsgbuf.buf, .msg_controllen = sizeof(cmsgbuf.buf) };
	struct cmsghdr	*c;
	ssize_t		n;
	int		nfd, i, *fp;

	if (l->rlen + want > l->rcap) {
		l->rcap = l->rlen + want;
		l->rbuf = xreallocarray(l->rbuf, 1, l->rcap);
	}
	iov.iov_base = l->rbuf + l->rlen;
	iov.iov_len = want;
	do {
		n = recvmsg(l->fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n == -1) {
		if (errno == EAGAIN)
			return -2;
		/* The peer closed with our last frame unread: its EOF. */
		if (errno == ECONNRESET)
			return 0;
		*why = "read error";
		return -1;
	}
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		fp = (int *)CMSG_DATA(c);
		for (i = 0; i < nfd; i++) {
			if (l->nrfds < (int)(sizeof(l->rfds) /
			    sizeof(l->rfds[0]))) {
				l->rfds[l->nrfds++] = fp[i];
				continue;
			}
			close(fp[i]);
			*why = "too many fds";
			n = -1;
		}
	}
	if (n == -1)
		return -1;
	if (mh.msg_flags & MSG_CTRUNC) {
		if (!l->trunc_ok) {
			*why = "control message truncated (MSG_CTRUNC)";
			return -1;
		}
		/* The bytes are all there: read the frame to its end. */
		l->rtrunc = 1;
	}
	l->rlen += (size_t)n;
	return n;
}

enum msg_result
msg_recv(struct msg_link *l, struct msg *m)
{
	struct msg_hdr	 h;
	const struct msg_type_info *t = NULL;
	const char	*why = NULL;
	ssize_t		 n;
	size_t		 need;
	int		 before;

	memset(m, 0, sizeof(*m));
	if (l->fd == -1)
		return MSG_ERROR;

	/* The header, then exactly its payload; fds only with the header. */
	for (;;) {
		need = sizeof(h);
		if (l->rlen >= sizeof(h)) {
			memcpy(&h, l->rbuf, sizeof(h));
			if (msg_check_header(&h, l->chan, l->recv_dir, &t,
			    &why) == -1)
				goto bad;
			if (l->nrfds != h.nfds &&
			    !(l->rtrunc && l->nrfds < h.nfds)) {
				why = "fds received differ from the header";
				goto bad;
			}
			if ((need += h.len) == l->rlen)
				break;
		}
		before = l->nrfds;
		if ((n = link_read(l, need - l->rlen, &why)) == -2)
			return MSG_AGAIN;
		if (n == 0 && l->rlen == 0 && l->nrfds == 0)
			return MSG_EOF;
		if (n == 0)
			why = t == NULL ? "EOF inside a frame header" :
			    "EOF inside a frame";
		if (n <= 0)
			goto bad;
		if (t != NULL && l->nrfds != before) {
			why = "fds arrived inside a payload";
			goto bad;
		}
	}

	if (msg_validate(t, l->rbuf + sizeof(h), h.len, &why) == -1)
		goto bad;
	m->info = t;
	m->len = h.len;
	m->payload = xmalloc(h.len + 1);
	memcpy(m->payload, l->rbuf + sizeof(h), h.len);
	explicit_bzero(l->rbuf, l->rlen);
	l->rlen = 0;
	if (l->rtrunc) {
		/* What did arrive of the fds is of no use without the rest. */
		log_warnx("link to %s: %s arrived without its fds (MSG_CTRUNC)",
		    l->peer, t->name);
		close_fds(l->rfds, l->nrfds);
		l->nrfds = 0;
		l->rtrunc = 0;
		return MSG_FDS_LOST;
	}
	memcpy(m->fds, l->rfds, sizeof(int) * l->nrfds);
	m->nfds = l->nrfds;
	l->nrfds = 0;
	return MSG_OK;

bad:
	log_warnx("link to %s: invalid frame (%s%s%s): closing it", l->peer,
	    why ? why : "unknown", t ? ", type " : "", t ? t->name : "");
	close_fds(l->rfds, l->nrfds);
	l->nrfds = 0;
	l->rlen = 0;
	l->rtrunc = 0;
	return MSG_ERROR;
}

void
msg_free(struct msg *m)
{
	if (m->payload != NULL) {
		explicit_bzero(m->payload, m->len);
		free(m->payload);
	}
	close_fds(m->fds, m->nfds);
	memset(m, 0, sizeof(*m));
}

/* ---- reading fields (frames are validated: misuse is a bug) ---- */

uint32_t
msg_get_u32(struct msg *m)
{
	uint32_t v;

	schema_next(m->info, &m->field, "u");
	memcpy(&v, m->payload + m->off, 4);
	m->off += 4;
	return v;
}

uint64_t
msg_get_u64(struct msg *m)
{
	uint64_t v;

	schema_next(m->info, &m->field, "q");
	memcpy(&v, m->payload + m->off, 8);
	m->off += 8;
	return v;
}

/* A string or blob: its uint32 length, then the bytes. */
static const void *
get_counted(struct msg *m, size_t *lenp)
{
	uint32_t	n;

	memcpy(&n, m->payload + m->off, 4);
	m->off += 4 + n;
	*lenp = n;
	return m->payload + m->off - n;
}

const char *
msg_get_str(struct msg *m)
{
	size_t	n;

	schema_next(m->info, &m->field, "sS");
	return get_counted(m, &n);
}

const void *
msg_get_blob(struct msg *m, size_t *lenp)
{
	schema_next(m->info, &m->field, "b");
	return get_counted(m, lenp);
}

char **
msg_get_strv(struct msg *m)
{
	uint32_t	n, i;
	size_t		len;
	char		**v;

	schema_next(m->info, &m->field, "v");
	memcpy(&n, m->payload + m->off, 4);
	m->off += 4;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = xstrdup(get_counted(m, &len));
	return v;
}

int
msg_take_fd(struct msg *m, int i)
{
	int	fd;

	if (i < 0 || i >= m->nfds)
		fatalx("%s: no fd %d", m->info->name, i);
	fd = m->fds[i];
	m->fds[i] = -1;
	return fd;
}
