// SPDX-License-Identifier: ISC
/*
 * The whole catalogue's table (common/msg.h), for every program but the
 * launcher and the guard (which link msg_launch.c), and what only those
 * programs use: decoding a frame held in memory, and printing one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/xmalloc.h"

static const struct msg_type_info msg_types[] = {
	MSG_CATALOGUE(MSG_INFO)
};

const struct msg_type_info *
msg_type_lookup(uint16_t type)
{
	size_t	i;

	for (i = 0; i < sizeof(msg_types) / sizeof(msg_types[0]); i++)
		if (msg_types[i].type == type)
			return &msg_types[i];
	return NULL;
}

const char *
msg_type_name(uint16_t type)
{
	const struct msg_type_info *t = msg_type_lookup(type);

	return t != NULL ? t->name : "UNKNOWN";
}

int
msg_decode_mem(const uint8_t *p, size_t len, uint8_t chan, uint8_t dir,
    struct msg *m, const char **why)
{
	struct msg_hdr	h;
	const struct msg_type_info *t;

	memset(m, 0, sizeof(*m));
	if (len < sizeof(h)) {
		*why = "short header";
		return -1;
	}
	memcpy(&h, p, sizeof(h));
	if (msg_check_header(&h, chan, dir, &t, why) == -1)
		return -1;
	if (h.len != len - sizeof(h)) {
		*why = "length differs from the header";
		return -1;
	}
	if (h.nfds != 0) {
		*why = "fds declared but none can arrive in memory";
		return -1;
	}
	if (msg_validate(t, p + sizeof(h), h.len, why) == -1)
		return -1;
	m->info = t;
	m->payload = xmalloc(h.len + 1);
	memcpy(m->payload, p + sizeof(h), h.len);
	m->len = h.len;
	return 0;
}

/* ---- dumping ---- */

/* The next string of a 'v' field (validated: in bounds). */
static const char *
dump_next(struct msg *m)
{
	uint32_t	n;
	const char	*s;

	memcpy(&n, m->payload + m->off, 4);
	s = (const char *)m->payload + m->off + 4;
	m->off += 4 + n;
	return s;
}

static size_t
dump_str(char *buf, size_t len, size_t o, const char *s)
{
	size_t	i;

	if (o + 2 >= len)
		return o;
	buf[o++] = '"';
	for (i = 0; s[i] != '\0' && i < 80 && o + 6 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f)
			o += snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (s[i] != '\0' && o + 4 < len)
		o += snprintf(buf + o, len - o, "...");
	if (o + 1 < len)
		buf[o++] = '"';
	buf[o < len ? o : len - 1] = '\0';
	return o;
}

void
msg_dump(const struct msg *src, char *buf, size_t len)
{
	struct msg	m = *src;
	const char	*s;
	size_t		o = 0, bl;
	uint32_t	n, i;

	if (len == 0)
		return;
	m.off = 0;
	m.field = 0;
	o += snprintf(buf, len, "%s(", m.info->name);
	for (s = m.info->schema; *s != '\0' && o + 8 < len; s++) {
		if (s != m.info->schema)
			o += snprintf(buf + o, len - o, ", ");
		if (o >= len)
			break;
		switch (*s) {
		case 'u':
			o += snprintf(buf + o, len - o, "%u", msg_get_u32(&m));
			break;
		case 'q':
			o += snprintf(buf + o, len - o, "%llu",
			    (unsigned long long)msg_get_u64(&m));
			break;
		case 's':
			o = dump_str(buf, len, o, msg_get_str(&m));
			break;
		case 'S':
			(void)msg_get_str(&m);
			o += snprintf(buf + o, len - o, "<redacted>");
			break;
		case 'b':
			(void)msg_get_blob(&m, &bl);
			o += snprintf(buf + o, len - o, "<%zu bytes>", bl);
			break;
		case 'v':
			m.field++;
			memcpy(&n, m.payload + m.off, 4);
			m.off += 4;
			o += snprintf(buf + o, len - o, "[");
			for (i = 0; i < n; i++) {
				if (i > 0 && o + 2 < len)
					o += snprintf(buf + o, len - o, " ");
				if (o < len)
					o = dump_str(buf, len, o,
					    dump_next(&m));
			}
			if (o < len)
				o += snprintf(buf + o, len - o, "]");
			break;
		}
	}
	if (o < len)
		o += snprintf(buf + o, len - o, ")");
	if (m.nfds > 0 && o < len)
		snprintf(buf + o, len - o, " +%d fd", m.nfds);
	buf[len - 1] = '\0';
}
