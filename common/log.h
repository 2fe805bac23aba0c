/* SPDX-License-Identifier: ISC */
/*
 * Logging tagged per process, in the OpenBSD daemon style: every line on
 * stderr starts with the process tag ("airlockd", "launcher", ...), so the
 * one stderr the desktop app collects can be read per process.  fatal()
 * appends strerror(errno); fatalx() does not.  A secret is never formatted
 * into a log line: callers pass only names, ids and reasons.
 */
#ifndef AIRLOCK_LOG_H
#define AIRLOCK_LOG_H

#include <stdarg.h>

void	log_init(const char *tag, int debug);
void	log_setverbose(int);
/*
 * For a process that will never fork again: the pid in each line is
 * taken now, not by a getpid(2) per line (proxyd logs every tunnel).
 */
void	log_pin_pid(void);
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
