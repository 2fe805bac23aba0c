/* SPDX-License-Identifier: ISC */
/*
 * Allocation helpers that die on OOM (a supervisor that cannot allocate
 * cannot make decisions safely), and explicit zeroing for secrets.
 */
#ifndef AIRLOCK_XMALLOC_H
#define AIRLOCK_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Zero then free; for buffers that held a secret. NULL-safe. */
void	 freezero_str(char *);
/* Free a NULL-terminated vector of strings. NULL-safe. */
void	 strv_free(char **);
/* The value of a hex digit c (either case), or -1. */
int	 hex_digit(int c);
size_t	 strv_len(char *const *);
int	 strv_in(char *const *, const char *);
/* Append a copy of s to a NULL-terminated vector; returns the new vector. */
char	**strv_add(char **, const char *);

#endif
