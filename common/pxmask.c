// SPDX-License-Identifier: ISC
/*
 * Checks of the masked-credential frames (pxmask.h).  The frames come
 * from airlockd, which checked the settings already; proxyd checks them
 * again because what it holds decides where a secret goes.
 */
#include <stdint.h>
#include <string.h>

#include "common/mask.h"
#include "common/msg.h"
#include "common/pxmask.h"

static int
name_ok(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	    *s == '_'))
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* A lower-case DNS name or IPv4 literal, as the settings accept one. */
int
pxmask_host_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 253 || *s == '.' || s[n - 1] == '.' ||
	    strstr(s, "..") != NULL)
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '.'))
			return 0;
	return 1;
}

static int
field_ok(const char *s)
{
	if (*s == '\0' || strlen(s) > 256)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f ||
		    *s == ':' || *s == '=' || *s == '&' || *s == '?' ||
		    *s == '#')
			return 0;
	return 1;
}

/* Visible ASCII: a value that goes into a head as it is. */
static int
visible(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

static int
sid_ok(const char *s)
{
	return *s != '\0' && strlen(s) < 128 && visible(s);
}

int
pxmask_decode(struct msg *m, struct pxmask_wire *w, const char **why)
{
	size_t	n;

	/* untrusted-ish: airlockd's frame, checked before it is held */
	if (m->info->type != MSG_PX_MASK) {
		*why = "not a MSG_PX_MASK";
		return -1;
	}
	w->sid = msg_get_str(m);
	w->name = msg_get_str(m);
	w->host = msg_get_str(m);
	w->where = (int)msg_get_u32(m);
	w->field = msg_get_str(m);
	w->placeholder = msg_get_str(m);
	w->real = msg_get_str(m);
	if (!sid_ok(w->sid))
		*why = "bad session id";
	else if (!name_ok(w->name))
		*why = "bad variable name";
	else if (!pxmask_host_ok(w->host))
		*why = "bad host";
	else if (w->where != MASK_HEADER && w->where != MASK_QUERY &&
	    w->where != MASK_BASIC)
		*why = "unknown place for the value";
	else if (w->where == MASK_BASIC ? w->field[0] != '\0' :
	    !field_ok(w->field))
		*why = "bad header or parameter name";
	else if ((n = strlen(w->real)) == 0 || n > MASK_VALUE_MAX ||
	    strlen(w->placeholder) != n)
		*why = "placeholder and value differ in length";
	else if (!visible(w->real) || !visible(w->placeholder))
		*why = "placeholder or value not visible ASCII";
	else if (strcmp(w->real, w->placeholder) == 0)
		*why = "placeholder equal to the value";
	else
		return 0;
	return -1;
}

int
pxmask_end_decode(struct msg *m, const char **sid, const void **pem,
    size_t *pemlen, const char **why)
{
	if (m->info->type != MSG_PX_MASK_END) {
		*why = "not a MSG_PX_MASK_END";
		return -1;
	}
	*sid = msg_get_str(m);
	*pem = msg_get_blob(m, pemlen);
	if (!sid_ok(*sid)) {
		*why = "bad session id";
		return -1;
	}
	if (*pemlen == 0 || memchr(*pem, '\0', *pemlen) != NULL) {
		*why = "the upstream trust store is empty or not PEM text";
		return -1;
	}
	return 0;
}
