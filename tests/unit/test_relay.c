// SPDX-License-Identifier: ISC
/*
 * Unit tests for proxyd/relay.c, the splice relay, on real TCP sockets on
 * 127.0.0.1: its events are edge-triggered and a lost edge is a tunnel
 * that hangs, so these set up the states where an edge is easy to lose:
 * bytes and a FIN that arrived before the tunnel existed (also on an
 * upstream socket whose edges a dial's event already took, as resolve.c
 * hands its registration over), one-byte ping-pong, and megabytes both
 * ways at once.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "proxyd/proxyd.h"
#include "tests/unit/unit.h"

struct event_base	*px_base;
/* session.c's share of the descriptors: here, always room. */
uint64_t		 px_nopen_all;
int			 px_fd_room(unsigned n) { (void)n; return 1; }

static struct px_session sess;
static int	 cli, pcli, pup, srv;	/* client, proxy's two ends, server */

static void
nonblock(int fd)
{
	int	 fl = fcntl(fd, F_GETFL);

	ck_assert_int_ne(fl, -1);
	ck_assert_int_ne(fcntl(fd, F_SETFL, fl | O_NONBLOCK), -1);
}

/* A connected loopback TCP pair: *a connected, *b accepted. */
static void
tcp_pair(int *a, int *b)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int	 l;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ne(l = socket(AF_INET, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	ck_assert_int_ne(*a = socket(AF_INET, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(connect(*a, (struct sockaddr *)&sin, sizeof(sin)),
	    0);
	ck_assert_int_ne(*b = accept(l, NULL, NULL), -1);
	close(l);
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(px_base = event_base_new());
	memset(&sess, 0, sizeof(sess));
	sess.id = (char *)"test";
	TAILQ_INIT(&sess.conns);
	TAILQ_INIT(&sess.tunnels);
	tcp_pair(&cli, &pcli);
	tcp_pair(&pup, &srv);
	/* proxyd's sockets are non-blocking; the test's ends too */
	nonblock(cli);
	nonblock(pcli);
	nonblock(pup);
	nonblock(srv);
}

static void
teardown(void)
{
	px_tunnel_close_all(&sess);
	px_relay_shutdown();
	close(cli);
	close(srv);
	event_base_free(px_base);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One turn of proxyd's loop, then a short pause for loopback delivery. */
static void
turn(void)
{
	event_base_loop(px_base, EVLOOP_NONBLOCK);
	usleep(1000);
}

/*
 * Read exactly n bytes from fd while turning the loop; want_eof: then
 * also the end of file.  Fails after 5 s: a lost edge shows as a hang.
 */
static void
expect(int fd, const void *want, size_t n, int want_eof)
{
	char	*got = malloc(n + 1);
	size_t	 have = 0;
	double	 t0 = now();
	ssize_t	 r;

	ck_assert_ptr_nonnull(got);
	while (have < n || want_eof) {
		ck_assert_msg(now() - t0 < 5,
		    "stalled after %zu of %zu bytes%s", have, n,
		    have == n ? " (no EOF)" : "");
		turn();
		r = recv(fd, got + have, have < n ? n - have : 1, 0);
		if (r == -1) {
			ck_assert_int_eq(errno, EAGAIN);
			continue;
		}
		if (r == 0) {
			ck_assert_msg(want_eof && have == n, "early EOF");
			break;
		}
		ck_assert_msg(have + (size_t)r <= n, "bytes past the end");
		have += (size_t)r;
	}
	ck_assert_int_eq(memcmp(got, want, n), 0);
	free(got);
}

/* What resolve.c's dial does with the upstream's edges: records them. */
static short	 dial_seen;

static void
dial_cb(int fd, short ev, void *arg)
{
	(void)fd;
	(void)arg;
	dial_seen |= ev;
}

/*
 * The dial's event (PX_TUNNEL_EV on the upstream socket) takes the
 * upstream's edges until the tunnel starts, then is freed.
 */
static void
start_after_dial(int banner)
{
	struct event *dial = event_new(px_base, pup, PX_TUNNEL_EV, dial_cb,
	    NULL);

	ck_assert_ptr_nonnull(dial);
	dial_seen = 0;
	ck_assert_int_eq(event_add(dial, NULL), 0);
	turn();				/* "connected": the first edge */
	if (banner)
		ck_assert_int_eq(write(srv, "banner\n", 7), 7);
	turn();				/* the banner's edge, also taken */
	turn();
	ck_assert(dial_seen & EV_WRITE);
	px_tunnel_start(&sess, pcli, pup, dial_seen, NULL, 0, "test");
	event_free(dial);
}

START_TEST(t_server_speaks_first)
{
	start_after_dial(1);
	expect(cli, "banner\n", 7, 0);
	ck_assert_int_eq(write(cli, "hi", 2), 2);
	expect(srv, "hi", 2, 0);
}
END_TEST

/*
 * A quiet upstream at the hand-over is not read (no EAGAIN round): its
 * first bytes, and its FIN, must still raise edges the tunnel sees.
 */
START_TEST(t_server_speaks_after_start)
{
	start_after_dial(0);
	ck_assert(!(dial_seen & EV_READ));
	turn();
	ck_assert_int_eq(write(srv, "late\n", 5), 5);
	expect(cli, "late\n", 5, 0);
	ck_assert_int_eq(write(cli, "hi", 2), 2);
	expect(srv, "hi", 2, 0);
	ck_assert_int_eq(shutdown(srv, SHUT_WR), 0);
	expect(cli, "", 0, 1);
}
END_TEST

START_TEST(t_server_speaks_and_closes)
{
	struct event *dial = event_new(px_base, pup, PX_TUNNEL_EV, dial_cb,
	    NULL);

	dial_seen = 0;
	ck_assert_int_eq(event_add(dial, NULL), 0);
	turn();
	ck_assert_int_eq(write(srv, "bye\n", 4), 4);
	ck_assert_int_eq(shutdown(srv, SHUT_WR), 0);
	turn();
	turn();
	ck_assert(dial_seen & EV_CLOSED);
	px_tunnel_start(&sess, pcli, pup, dial_seen, NULL, 0, "test");
	event_free(dial);
	/* the FIN was queued behind the bytes before the tunnel existed */
	expect(cli, "bye\n", 4, 1);
}
END_TEST

START_TEST(t_client_data_and_fin_queued)
{
	ck_assert_int_eq(write(cli, "x", 1), 1);
	ck_assert_int_eq(shutdown(cli, SHUT_WR), 0);
	usleep(10000);
	/* no dial registration: the relay's own reports the upstream */
	px_tunnel_start(&sess, pcli, pup, 0, NULL, 0, "test");
	expect(srv, "x", 1, 1);
	ck_assert_int_eq(write(srv, "y", 1), 1);
	ck_assert_int_eq(shutdown(srv, SHUT_WR), 0);
	expect(cli, "y", 1, 1);
	/* both directions done: the tunnel closed itself */
	turn();
	ck_assert(TAILQ_EMPTY(&sess.tunnels));
}
END_TEST

START_TEST(t_early_data)
{
	px_tunnel_start(&sess, pcli, pup, 0, "early", 5, "test");
	expect(srv, "early", 5, 0);
}
END_TEST

START_TEST(t_ping_pong)
{
	char	 b;
	int	 i;

	start_after_dial(1);
	expect(cli, "banner\n", 7, 0);
	for (i = 0; i < 300; i++) {
		b = (char)i;
		ck_assert_int_eq(write(cli, &b, 1), 1);
		expect(srv, &b, 1, 0);
		ck_assert_int_eq(write(srv, &b, 1), 1);
		expect(cli, &b, 1, 0);
	}
}
END_TEST

/*
 * 4 MB each way at once, through full pipes and socket buffers: the
 * test's ends read through small receive buffers, so the relay's writes
 * block with its pipes full and it stops and resumes watching its
 * sources (pause_source()).
 */
START_TEST(t_bulk_both_ways)
{
	const size_t n = 4 * 1024 * 1024;
	unsigned char *a = malloc(n), *b = malloc(n), *ga = malloc(n + 1),
	    *gb = malloc(n + 1);
	size_t	 wa = 0, wb = 0, ra = 0, rb = 0, i;
	int	 eofa = 0, eofb = 0, small = 32 * 1024;
	double	 t0 = now();
	ssize_t	 r;

	ck_assert(a != NULL && b != NULL && ga != NULL && gb != NULL);
	ck_assert_int_eq(setsockopt(cli, SOL_SOCKET, SO_RCVBUF, &small,
	    sizeof(small)), 0);
	ck_assert_int_eq(setsockopt(srv, SOL_SOCKET, SO_RCVBUF, &small,
	    sizeof(small)), 0);
	for (i = 0; i < n; i++) {
		a[i] = (unsigned char)(i * 7);
		b[i] = (unsigned char)(i * 13 + 1);
	}
	px_tunnel_start(&sess, pcli, pup, 0, NULL, 0, "test");
	while (!eofa || !eofb) {
		ck_assert_msg(now() - t0 < 20,
		    "stalled: out %zu/%zu in %zu/%zu", ra, n, rb, n);
		event_base_loop(px_base, EVLOOP_NONBLOCK);
		if (wa < n && (r = send(cli, a + wa, n - wa, 0)) > 0 &&
		    (wa += (size_t)r) == n)
			shutdown(cli, SHUT_WR);
		if (wb < n && (r = send(srv, b + wb, n - wb, 0)) > 0 &&
		    (wb += (size_t)r) == n)
			shutdown(srv, SHUT_WR);
		if (!eofa && (r = recv(srv, ga + ra, n - ra + 1, 0)) >= 0) {
			ck_assert(ra + (size_t)r <= n);
			ra += (size_t)r;
			eofa = r == 0;
		}
		if (!eofb && (r = recv(cli, gb + rb, n - rb + 1, 0)) >= 0) {
			ck_assert(rb + (size_t)r <= n);
			rb += (size_t)r;
			eofb = r == 0;
		}
	}
	ck_assert_uint_eq(ra, n);
	ck_assert_uint_eq(rb, n);
	ck_assert_int_eq(memcmp(a, ga, n), 0);
	ck_assert_int_eq(memcmp(b, gb, n), 0);
	turn();
	ck_assert(TAILQ_EMPTY(&sess.tunnels));
	free(a);
	free(b);
	free(ga);
	free(gb);
}
END_TEST

static Suite *
relay_suite(void)
{
	Suite	*s = suite_create("relay");
	TCase	*tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_server_speaks_first);
	tcase_add_test(tc, t_server_speaks_after_start);
	tcase_add_test(tc, t_server_speaks_and_closes);
	tcase_add_test(tc, t_client_data_and_fin_queued);
	tcase_add_test(tc, t_early_data);
	tcase_add_test(tc, t_ping_pong);
	tcase_add_test(tc, t_bulk_both_ways);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(relay_suite());
}
