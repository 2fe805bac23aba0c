// SPDX-License-Identifier: ISC
/*
 * Drop every capability (SPEC R-L7).  Creating the user namespace gave
 * init a full set inside it, needed for the mounts; once the root is
 * built and Landlock is on, none is needed again.  The bounding set is
 * emptied first (that needs CAP_SETPCAP, which we still hold), then the
 * ambient set, then effective, permitted and inheritable with libcap, so
 * that no later execve can regain anything.
 */
#include <sys/prctl.h>
#include <sys/capability.h>

#include <errno.h>

#include "common/log.h"
#include "launcher/launcher.h"

void
caps_drop_all(void)
{
	cap_t		caps;
	cap_value_t	c, last;

	last = (cap_value_t)cap_max_bits() - 1;
	for (c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1 &&
		    errno != EINVAL)
			die("drop capability %d from the bounding set", c);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		die("clear ambient capabilities");
	if ((caps = cap_init()) == NULL)
		die("cap_init");
	if (cap_set_proc(caps) == -1)
		die("cap_set_proc");
	cap_free(caps);
}
