// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the command policy: the shell parser, the
 * classifier in every mode, and the ref-name checks.  Untrusted input by
 * definition; the properties checked are no crash, no leak, no sanitizer
 * report, that a parse failure is always a deny, and that a line run
 * through an alias (alias zz='LINE' then zz) is judged at least as
 * strictly as the line itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/refname.h"
#include "policy/classify.h"
#include "policy/push.h"
#include "policy/shell.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sh_list		 l;
	struct pol_result	*r;
	enum pol_verdict	 v;
	char			 err[160], *s, *al;
	const char		*nul;
	int			 m;

	if (sh_parse((const char *)data, size, &l, err, sizeof(err)) == 0)
		sh_list_free(&l);
	for (m = POL_MODE_CHAT; m <= POL_MODE_ORCHESTRATE; m++) {
		r = pol_check((const char *)data, size, (enum pol_mode)m,
		    NULL);
		if ((r->flags & POL_F_PARSE_ERROR) && r->verdict != POL_DENY)
			abort();
		if (r->ncmds == 0 && r->verdict != POL_ALLOW)
			abort();
		pol_result_free(r);
	}
	/* The same line behind an alias: never judged more leniently. */
	if (size < 4096 && memchr(data, '\'', size) == NULL &&
	    memchr(data, '\0', size) == NULL) {
		r = pol_check((const char *)data, size, POL_MODE_CHAT, NULL);
		v = r->verdict;
		pol_result_free(r);
		al = malloc(size + 32);
		memcpy(al, "alias zz='", 10);
		memcpy(al + 10, data, size);
		memcpy(al + 10 + size, "'\nzz", 4);
		r = pol_check(al, size + 14, POL_MODE_CHAT, NULL);
		if (r->verdict < v)
			abort();
		pol_result_free(r);
		free(al);
	}
	/* pattern NUL ref */
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	nul = memchr(data, '\0', size);
	if (nul != NULL && size < 4096)
		(void)pol_ref_match(s, s + (nul - (const char *)data) + 1);
	(void)refname_valid(s);
	free(s);
	return 0;
}
