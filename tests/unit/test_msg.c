// SPDX-License-Identifier: ISC
/*
 * Unit tests for the framing and the one validator (common/msg.c, R-P4):
 * round trips with fds over a real socketpair, and every kind of bad
 * frame closing the link: unknown type, wrong channel, wrong direction,
 * bad version, short payload, trailing bytes, unterminated and
 * NUL-bearing strings, fd counts that differ from the catalogue.
 */
#include <sys/resource.h>
#include <sys/socket.h>

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "tests/unit/unit.h"

static int sp[2];
static struct msg_link down_tx, down_rx;	/* airlockd -> launcher */

static void
setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	msg_link_init(&down_tx, sp[0], MSG_CH_LAUNCHER, MSG_UP, "child");
	msg_link_init(&down_rx, sp[1], MSG_CH_LAUNCHER, MSG_DOWN, "parent");
}

static void
teardown(void)
{
	msg_link_close(&down_tx);
	msg_link_close(&down_rx);
}

/* Write raw bytes (a hand-made frame) with optional fds. */
static void
raw_send(int fd, const void *buf, size_t len, int *fds, int nfds)
{
	struct msghdr	mh;
	struct iovec	iov = { (void *)buf, len };
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int) * 4)];
	} cm;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm.h.cmsg_level = SOL_SOCKET;
		cm.h.cmsg_type = SCM_RIGHTS;
		cm.h.cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(&cm.h), fds, sizeof(int) * nfds);
	}
	ck_assert_int_eq(sendmsg(fd, &mh, 0), (ssize_t)len);
}

static size_t
frame(uint8_t *buf, uint16_t type, uint8_t version, uint8_t nfds,
    const void *payload, uint32_t len)
{
	struct msg_hdr h = { type, version, nfds, len };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), payload, len);
	return sizeof(h) + len;
}

START_TEST(roundtrip_exec)
{
	struct msgbuf	b;
	struct msg	m;
	char		*argv[] = { "sh", "-c", "echo hi", NULL };
	char		*envp[] = { "PATH=/bin", NULL };
	char		**v;

	msgbuf_init(&b, MSG_EXEC);
	msg_put_u32(&b, 42);
	msg_put_str(&b, "/work");
	msg_put_strv(&b, argv);
	msg_put_strv(&b, envp);
	/* down_tx receives UP, so it may send DOWN. */
	ck_assert_int_eq(msg_send(&down_tx, &b, NULL, 0), 0);
	msgbuf_free(&b);
	ck_assert_int_eq(msg_recv(&down_rx, &m), MSG_OK);
	ck_assert_uint_eq(m.info->type, MSG_EXEC);
	ck_assert_uint_eq(msg_get_u32(&m), 42);
	ck_assert_str_eq(msg_get_str(&m), "/work");
	v = msg_get_strv(&m);
	ck_assert_str_eq(v[2], "echo hi");
	ck_assert_ptr_null(v[3]);
	strv_free(v);
	v = msg_get_strv(&m);
	ck_assert_str_eq(v[0], "PATH=/bin");
	strv_free(v);
	msg_free(&m);
}
END_TEST

START_TEST(roundtrip_fds)
{
	struct msgbuf	b;
	struct msg	m;
	int		p[2], fds[2], got;
	char		c = 0;

	ck_assert_int_eq(pipe(p), 0);
	fds[0] = p[0];
	fds[1] = p[1];
	/* EXEC_STARTED goes up: send from the child's end. */
	msgbuf_init(&b, MSG_EXEC_STARTED);
	msg_put_u32(&b, 1);
	msg_put_u32(&b, 7);
	ck_assert_int_eq(msg_send(&down_rx, &b, fds, 2), 0);
	msgbuf_free(&b);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(msg_recv(&down_tx, &m), MSG_OK);
	ck_assert_int_eq(m.nfds, 2);
	got = msg_take_fd(&m, 1);
	ck_assert_int_eq(write(got, "x", 1), 1);
	ck_assert_int_eq(read(m.fds[0], &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	close(got);
	ck_assert_int_eq(fcntl(m.fds[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	msg_free(&m);
}
END_TEST

/* Send EXEC_STARTED with two fds; the receiver then has no free fd. */
static void
send_with_fds_to_a_full_table(struct rlimit *was)
{
	struct msgbuf	b;
	struct rlimit	rl;
	int		p[2], k;

	ck_assert_int_eq(pipe(p), 0);
	msgbuf_init(&b, MSG_EXEC_STARTED);
	msg_put_u32(&b, 1);
	msg_put_u32(&b, 7);
	ck_assert_int_eq(msg_send(&down_rx, &b, p, 2), 0);
	msgbuf_free(&b);
	close(p[0]);
	close(p[1]);
	/* The lowest free fd is the limit: nothing below it is free. */
	ck_assert_int_ge(k = dup(0), 0);
	close(k);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, was), 0);
	rl = *was;
	rl.rlim_cur = (rlim_t)k;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* Out of fds: an error that closes the link, unless it asked. */
START_TEST(fds_lost_is_an_error)
{
	struct msg	m;
	struct rlimit	was;

	send_with_fds_to_a_full_table(&was);
	ck_assert_int_eq(msg_recv(&down_tx, &m), MSG_ERROR);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
}
END_TEST

/* trunc_ok: the frame without its fds, and the link still in step. */
START_TEST(fds_lost_trunc_ok)
{
	struct msgbuf	b;
	struct msg	m;
	struct rlimit	was;

	down_tx.trunc_ok = 1;
	send_with_fds_to_a_full_table(&was);
	ck_assert_int_eq(msg_recv(&down_tx, &m), MSG_FDS_LOST);
	ck_assert_int_eq(m.info->type, MSG_EXEC_STARTED);
	ck_assert_int_eq(m.nfds, 0);
	ck_assert_uint_eq(msg_get_u32(&m), 1);
	ck_assert_uint_eq(msg_get_u32(&m), 7);
	msg_free(&m);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
	msgbuf_init(&b, MSG_EXEC_EXIT);
	msg_put_u32(&b, 1);
	msg_put_u32(&b, 0);
	ck_assert_int_eq(msg_send(&down_rx, &b, NULL, 0), 0);
	msgbuf_free(&b);
	ck_assert_int_eq(msg_recv(&down_tx, &m), MSG_OK);
	ck_assert_int_eq(m.info->type, MSG_EXEC_EXIT);
	msg_free(&m);
}
END_TEST

START_TEST(eof_between_frames)
{
	struct msg m;

	close(down_tx.fd);
	down_tx.fd = -1;
	ck_assert_int_eq(msg_recv(&down_rx, &m), MSG_EOF);
}
END_TEST

static void
expect_error(const uint8_t *buf, size_t len, int *fds, int nfds)
{
	struct msg m;

	raw_send(sp[0], buf, len, fds, nfds);
	shutdown(sp[0], SHUT_WR);
	ck_assert_int_eq(msg_recv(&down_rx, &m), MSG_ERROR);
}

START_TEST(bad_unknown_type)
{
	uint8_t buf[64];
	uint32_t u = 1;

	expect_error(buf, frame(buf, 0x7777, MSG_VERSION, 0, &u, 4), NULL, 0);
}
END_TEST

START_TEST(bad_channel)
{
	uint8_t buf[64];

	/* A proxyd message on the launcher link. */
	expect_error(buf, frame(buf, MSG_PX_SESSION_DEL, MSG_VERSION, 0,
	    "\2\0\0\0a", 6), NULL, 0);
}
END_TEST

START_TEST(bad_direction)
{
	uint8_t buf[64];
	uint32_t v[3] = { 1, 2, 3 };

	/* LAUNCH_READY goes up, never down. */
	expect_error(buf, frame(buf, MSG_LAUNCH_READY, MSG_VERSION, 0, v, 12),
	    NULL, 0);
}
END_TEST

START_TEST(bad_version)
{
	uint8_t buf[64];

	expect_error(buf, frame(buf, MSG_PLAN_END, 9, 0, "", 0), NULL, 0);
}
END_TEST

START_TEST(bad_short_payload)
{
	uint8_t buf[64];

	expect_error(buf, frame(buf, MSG_EXEC_SIGNAL, MSG_VERSION, 0,
	    "\1\0\0\0", 4), NULL, 0);
}
END_TEST

START_TEST(bad_trailing_bytes)
{
	uint8_t buf[64];

	expect_error(buf, frame(buf, MSG_PLAN_END, MSG_VERSION, 0, "x", 1),
	    NULL, 0);
}
END_TEST

START_TEST(bad_unterminated_string)
{
	uint8_t buf[64];

	/* MSG_EXEC: exec id, then a cwd string without its NUL. */
	expect_error(buf, frame(buf, MSG_EXEC, MSG_VERSION, 0,
	    "\1\0\0\0\2\0\0\0ab\0\0\0\0\0\0\0\0", 18), NULL, 0);
}
END_TEST

START_TEST(bad_interior_nul)
{
	uint8_t buf[64];
	/* MSG_SHUTDOWN has no fields; use PLAN_LISTEN's sibling with a
	 * string: LAUNCH_FAILED is UP, so test the validator directly. */
	const struct msg_type_info *t = msg_type_lookup(MSG_LAUNCH_FAILED);
	const char *why = NULL;

	(void)buf;
	ck_assert_int_eq(msg_validate(t, (const uint8_t *)"\4\0\0\0a\0b\0",
	    8, &why), -1);
	ck_assert_str_eq(why, "string with interior NUL");
	ck_assert_int_eq(msg_validate(t, (const uint8_t *)"\3\0\0\0ab\0",
	    7, &why), 0);
}
END_TEST

START_TEST(bad_string_too_long)
{
	uint8_t buf[64];

	expect_error(buf, frame(buf, MSG_EXEC, MSG_VERSION, 0,
	    "\1\0\0\0\xff\0\0\0a\0", 10), NULL, 0);
}
END_TEST

START_TEST(bad_undeclared_fd)
{
	uint8_t buf[64];
	int	fd = dup(0);

	/* PLAN_END carries no fd; one arrives anyway. */
	expect_error(buf, frame(buf, MSG_PLAN_END, MSG_VERSION, 0, "", 0),
	    &fd, 1);
	close(fd);
}
END_TEST

START_TEST(bad_missing_fd)
{
	uint8_t buf[64];
	struct msg_link up_rx;
	struct msg m;
	uint32_t v[2] = { 1, 2 };
	size_t n;

	/* EXEC_STARTED declares two fds; the header says two; none sent. */
	msg_link_init(&up_rx, sp[1], MSG_CH_LAUNCHER, MSG_UP, "child");
	n = frame(buf, MSG_EXEC_STARTED, MSG_VERSION, 2, v, 8);
	raw_send(sp[0], buf, n, NULL, 0);
	ck_assert_int_eq(msg_recv(&up_rx, &m), MSG_ERROR);
	/* up_rx shares sp[1] with down_rx, which teardown closes. */
	up_rx.fd = -1;
	msg_link_close(&up_rx);
}
END_TEST

START_TEST(bad_huge_length)
{
	uint8_t buf[64];
	struct msg_hdr h = { MSG_PLAN_END, MSG_VERSION, 0, 0x7fffffff };

	memcpy(buf, &h, sizeof(h));
	expect_error(buf, sizeof(h), NULL, 0);
}
END_TEST

START_TEST(eof_mid_frame)
{
	uint8_t buf[64];
	size_t n = frame(buf, MSG_EXEC_SIGNAL, MSG_VERSION, 0,
	    "\1\0\0\0\2\0\0\0", 8);

	expect_error(buf, n - 3, NULL, 0);
}
END_TEST

/*
 * A non-blocking link fed one byte at a time: MSG_AGAIN until the last
 * byte, the header's fds taken with its first byte, then the frame.
 */
START_TEST(nonblocking_byte_by_byte)
{
	uint8_t		 buf[64];
	struct msg_link	 up_rx;
	struct msg	 m;
	uint32_t	 v[2] = { 5, 9 };
	size_t		 n, i;
	int		 p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(sp[1], F_SETFL, O_NONBLOCK), 0);
	msg_link_init(&up_rx, sp[1], MSG_CH_LAUNCHER, MSG_UP, "child");
	n = frame(buf, MSG_EXEC_STARTED, MSG_VERSION, 2, v, 8);
	ck_assert_int_eq(msg_recv(&up_rx, &m), MSG_AGAIN);
	for (i = 0; i < n; i++) {
		raw_send(sp[0], buf + i, 1, i == 0 ? p : NULL, i == 0 ? 2 : 0);
		ck_assert_int_eq(msg_recv(&up_rx, &m), i + 1 < n ? MSG_AGAIN :
		    MSG_OK);
	}
	ck_assert_int_eq(msg_get_u32(&m), 5);
	ck_assert_int_eq(msg_get_u32(&m), 9);
	ck_assert_int_eq(m.nfds, 2);
	msg_free(&m);
	close(p[0]);
	close(p[1]);
	free(up_rx.rbuf);
}
END_TEST

/* fds may come only with a header's bytes: with a payload's, an error. */
START_TEST(bad_fds_inside_payload)
{
	uint8_t		 buf[64];
	struct msg_link	 up_rx;
	struct msg	 m;
	uint32_t	 v[2] = { 5, 9 };
	size_t		 n;
	int		 p[2];

	ck_assert_int_eq(pipe(p), 0);
	msg_link_init(&up_rx, sp[1], MSG_CH_LAUNCHER, MSG_UP, "child");
	n = frame(buf, MSG_EXEC_STARTED, MSG_VERSION, 2, v, 8);
	raw_send(sp[0], buf, n - 4, p, 2);
	raw_send(sp[0], buf + n - 4, 4, p, 1);
	ck_assert_int_eq(msg_recv(&up_rx, &m), MSG_ERROR);
	close(p[0]);
	close(p[1]);
	free(up_rx.rbuf);
}
END_TEST

START_TEST(decode_mem_and_dump)
{
	struct msgbuf	b;
	struct msg	m;
	const char	*why;
	uint8_t		buf[256];
	char		out[256];
	size_t		n;

	msgbuf_init(&b, MSG_GW_TOKEN_ANS);
	msg_put_u32(&b, 5);
	msg_put_u32(&b, 1);
	msg_put_str(&b, "s3cret-token");
	n = frame(buf, MSG_GW_TOKEN_ANS, MSG_VERSION, 0, b.data, b.len);
	msgbuf_free(&b);
	ck_assert_int_eq(msg_decode_mem(buf, n, MSG_CH_GATEWAYD, MSG_DOWN, &m,
	    &why), 0);
	msg_dump(&m, out, sizeof(out));
	ck_assert_ptr_null(strstr(out, "s3cret"));
	ck_assert_ptr_nonnull(strstr(out, "<redacted>"));
	ck_assert_ptr_nonnull(strstr(out, "MSG_GW_TOKEN_ANS(5, 1"));
	msg_free(&m);
}
END_TEST

/* airlock-clone's report (issue 16): only on its own channel, up. */
START_TEST(clone_done_channel)
{
	struct msgbuf	b;
	struct msg	m;
	const char	*why;
	uint8_t		buf[256];
	size_t		n;

	msgbuf_init(&b, MSG_CL_DONE);
	msg_put_u32(&b, 95);
	msg_put_u64(&b, 1);
	msg_put_u64(&b, 2);
	msg_put_u64(&b, 3);
	msg_put_u64(&b, 4);
	msg_put_str(&b, "tmpfs cannot clone files copy-on-write");
	n = frame(buf, MSG_CL_DONE, MSG_VERSION, 0, b.data, b.len);
	msgbuf_free(&b);
	ck_assert_int_eq(msg_decode_mem(buf, n, MSG_CH_CLONE, MSG_UP, &m,
	    &why), 0);
	ck_assert_uint_eq(msg_get_u32(&m), 95);
	ck_assert_uint_eq(msg_get_u64(&m), 1);
	ck_assert_uint_eq(msg_get_u64(&m), 2);
	ck_assert_uint_eq(msg_get_u64(&m), 3);
	ck_assert_uint_eq(msg_get_u64(&m), 4);
	ck_assert_str_eq(msg_get_str(&m), "tmpfs cannot clone files "
	    "copy-on-write");
	msg_free(&m);
	ck_assert_int_eq(msg_decode_mem(buf, n, MSG_CH_GATEWAYD, MSG_UP, &m,
	    &why), -1);
	ck_assert_int_eq(msg_decode_mem(buf, n, MSG_CH_CLONE, MSG_DOWN, &m,
	    &why), -1);
}
END_TEST

static Suite *
msg_suite(void)
{
	Suite	*s = suite_create("msg");
	TCase	*tc = tcase_create("framing");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, roundtrip_exec);
	tcase_add_test(tc, roundtrip_fds);
	tcase_add_test(tc, fds_lost_is_an_error);
	tcase_add_test(tc, fds_lost_trunc_ok);
	tcase_add_test(tc, eof_between_frames);
	tcase_add_test(tc, bad_unknown_type);
	tcase_add_test(tc, bad_channel);
	tcase_add_test(tc, bad_direction);
	tcase_add_test(tc, bad_version);
	tcase_add_test(tc, bad_short_payload);
	tcase_add_test(tc, bad_trailing_bytes);
	tcase_add_test(tc, bad_unterminated_string);
	tcase_add_test(tc, bad_interior_nul);
	tcase_add_test(tc, bad_string_too_long);
	tcase_add_test(tc, bad_undeclared_fd);
	tcase_add_test(tc, bad_missing_fd);
	tcase_add_test(tc, bad_huge_length);
	tcase_add_test(tc, eof_mid_frame);
	tcase_add_test(tc, nonblocking_byte_by_byte);
	tcase_add_test(tc, bad_fds_inside_payload);
	tcase_add_test(tc, decode_mem_and_dump);
	tcase_add_test(tc, clone_done_channel);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	log_init("test_msg", 0);
	log_setverbose(-1);
	return unit_run(msg_suite());
}
