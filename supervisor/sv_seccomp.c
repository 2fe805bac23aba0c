// SPDX-License-Identifier: ISC
/*
 * The sandbox's seccomp program (SPEC R-L6), compiled at build time by
 * supervisor/gen_seccomp.c, where its rules and their reasons are.  Two
 * variants: with the write-intent calls sent to init (R-L4), and, for the
 * test build's benchmark of that cost only, without.
 */
#include <stddef.h>
#include <stdlib.h>

#include "seccomp_bpf.h"	/* $(BUILD)/gen: gen_seccomp's output */
#include "supervisor/sv.h"

int
sv_seccomp_notify(void)
{
#ifdef AIRLOCK_TEST_BUILD
	/* Test build only: the untar benchmark measures the filter's cost. */
	return getenv("AIRLOCK_TEST_NO_NOTIFY") == NULL;
#else
	return 1;
#endif
}

void
sv_seccomp_program(const void **bufp, size_t *lenp)
{
	if (sv_seccomp_notify()) {
		*bufp = seccomp_bpf_notify;
		*lenp = sizeof(seccomp_bpf_notify);
	} else {
		*bufp = seccomp_bpf_plain;
		*lenp = sizeof(seccomp_bpf_plain);
	}
}
