// SPDX-License-Identifier: ISC
/*
 * Tagged logging to stderr.  Libc only: the launcher links this file.
 * Lines are written with one write(2) each so that the interleaved stderr
 * of several processes stays line-atomic.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

static const char *log_proc = "airlock";
static int log_verbose;
static pid_t log_pid;		/* 0: ask getpid(2) each time */

void
log_init(const char *tag, int debug)
{
	log_proc = tag;
	log_verbose = debug;
	if (getenv("AIRLOCK_DEBUG") != NULL)
		log_verbose = 1;
	else if (getenv("AIRLOCK_LOG_QUIET") != NULL)
		log_verbose = -1;
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

void
log_pin_pid(void)
{
	log_pid = getpid();
}

static void
vlog(const char *level, int with_errno, int saved, const char *fmt,
    va_list ap)
{
	char	msg[1024], line[1200];
	int	n;

	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Room is left for the tag and strerror after the longest msg. */
	n = snprintf(line, sizeof(line), "%s[%d]: %s%s%s%s\n", log_proc,
	    (int)(log_pid != 0 ? log_pid : getpid()), level, msg,
	    with_errno ? ": " : "", with_errno ? strerror(saved) : "");
	if (n >= (int)sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (n > 0)
		(void)!write(STDERR_FILENO, line, n);
}

/* "after" ends the fatal ones. */
#define LOGFN(name, level, errflag, gate, after)		\
void								\
name(const char *fmt, ...)					\
{								\
	va_list	ap;						\
	int	saved = errno;					\
	if (!(gate)) {						\
		va_start(ap, fmt);				\
		vlog(level, errflag, saved, fmt, ap);		\
		va_end(ap);					\
	}							\
	errno = saved;						\
	after;							\
}

LOGFN(log_warn, "", 1, 0, (void)0)
LOGFN(log_warnx, "", 0, 0, (void)0)
LOGFN(log_info, "", 0, log_verbose < 0, (void)0)
LOGFN(log_debug, "debug: ", 0, log_verbose <= 0, (void)0)
LOGFN(fatal, "fatal: ", 1, 0, exit(1))
LOGFN(fatalx, "fatal: ", 0, 0, exit(1))
