// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the Seatbelt profile generator (common/seatbelt.c)
 * and its reader (common/sbpl_check.c).  The input is split at NUL bytes
 * into strings (paths with every other byte, quotes, backslashes,
 * parentheses, newlines, invalid UTF-8), each given by its first byte to
 * one of the plan's lists.  Properties: the generated profile always
 * passes the reader (balanced, every string escaped, ancestors' unlink
 * denies, both spellings); the raw input fed to the reader never crashes
 * it; and every absolute secret, writable root and hard deny reads back,
 * through the escapes, as the same string in its own rule (a quote or
 * backslash that ended a string early would read back as another), a
 * hard deny also under file-link.  The reader's own checks include each
 * deny regex's literal prefix, which the generator computes apart.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/seatbelt.h"
#include "common/xmalloc.h"

#define NLISTS	11

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		**list[NLISTS] = { NULL };
	char		 *buf, *s, *out, err[256];
	unsigned	  ports[4] = { 3128, 1080, 9418, 0 };
	struct sbpl_plan  pl;
	size_t		  i, n, k;

	(void)sbpl_check((const char *)data, size, err, sizeof(err));
	if (size > 4096)
		return 0;
	buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0; i < size; i += n + 1) {
		s = buf + i;
		n = strlen(s);
		if (n == 0)
			continue;
		k = (unsigned char)s[0] % NLISTS;
		/* The first byte chooses the list; a path keeps its "/". */
		list[k] = strv_add(list[k], s[1] == '/' ? s + 1 : s);
	}
	memset(&pl, 0, sizeof(pl));
	pl.read_deny = list[0];
	pl.write_allow = list[1];
	pl.write_deny = list[2];
	pl.carve = list[3];
	pl.home_deny = list[4];
	pl.name_rules = list[5];
	pl.path_rules = list[6];
	pl.tree_rules = list[7];
	pl.exec_grants = list[8];
	pl.unix_sockets = list[9];
	pl.home_rules = list[10];
	pl.ports = ports;
	pl.nports = size > 0 ? data[0] % 4 : 0;
	out = sbpl_generate(&pl);
	if (sbpl_check(out, strlen(out), err, sizeof(err)) == -1)
		abort();
	n = strlen(out);
	for (i = 0; list[0] != NULL && list[0][i] != NULL; i++)
		if (list[0][i][0] == '/' && !sbpl_has_rule(out, n, "deny",
		    "file-read*", "subpath", list[0][i]))
			abort();
	for (i = 0; list[1] != NULL && list[1][i] != NULL; i++)
		if (list[1][i][0] == '/' && !sbpl_has_rule(out, n, "allow",
		    "file-write*", "subpath", list[1][i]))
			abort();
	for (i = 0; list[2] != NULL && list[2][i] != NULL; i++)
		if (list[2][i][0] == '/' && (!sbpl_has_rule(out, n, "deny",
		    "file-write*", "subpath", list[2][i]) ||
		    !sbpl_has_rule(out, n, "deny", "file-link", "subpath",
		    list[2][i]) ||
		    (strcmp(list[2][i], "/") != 0 && !sbpl_has_rule(out, n,
		    "deny", "file-write-unlink", "literal", list[2][i]))))
			abort();
	for (k = 0; k < NLISTS; k++)
		strv_free(list[k]);
	free(out);
	free(buf);
	return 0;
}
