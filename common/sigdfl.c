// SPDX-License-Identifier: ISC
/*
 * A forked child that goes on running code of its own (not exec) must
 * not run its parent's signal handlers: libevent's write to the parent's
 * loop, a client's terminal restore.  Every caught signal goes back to
 * its default, as exec would do; what is ignored stays ignored.
 */
#include <signal.h>

#include "common/sigdfl.h"

void
sig_default_caught(void)
{
	struct sigaction	sa;
	int			sig;

	for (sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) ||
		    (sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)))
			(void)signal(sig, SIG_DFL);
}
