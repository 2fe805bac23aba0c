/* SPDX-License-Identifier: ISC */
/*
 * A string from a sandbox or a client, made safe to show on a person's
 * terminal (OpenBSD's strvis in spirit): every byte that a terminal
 * would act on or that would hide text is written visibly.  C0 controls
 * and DEL become \e, \r, \n, \t or \xHH; a backslash is doubled; C1
 * controls (U+0080..U+009F) become \xHH of their code point; the Unicode
 * characters that reorder or hide text (bidi embeddings, overrides and
 * isolates, marks, zero-width characters, the byte order mark, line and
 * paragraph separators, tags) become <U+XXXX>; bytes that are not UTF-8
 * become \xHH.  Every other character, printable ASCII and UTF-8 text,
 * passes as it is.
 */
#ifndef AIRLOCK_VIS_H
#define AIRLOCK_VIS_H

#include <stddef.h>
#include <stdint.h>

/* The most one input byte becomes: \xHH per byte, <U+E007F> per four. */
#define VIS_MAX_GROWTH	4

/* Leave a backslash single: for text whose backslashes are its own
 * escapes already (a JSON line), where doubling would only garble it. */
#define VIS_BS_KEEP	0x1

/*
 * Escape n bytes of src into dst (dstsz bytes, NUL-terminated when
 * dstsz > 0).  Returns the length of the whole escaped string, as
 * snprintf does: a result >= dstsz means it was cut.
 */
size_t		 vis_n(char *dst, size_t dstsz, const char *src, size_t n,
		    int flags);
/* src escaped, in a new string (the caller frees it); NULL gives "-". */
char		*vis_str(const char *src);
/*
 * For printf arguments: src escaped in one of a few buffers of the
 * module's own, each reused (and the old string freed) VIS_RING calls
 * later.  Not for strings kept past the statement.
 */
#define VIS_RING	16
const char	*vis(const char *src);
/* The same, VIS_BS_KEEP. */
const char	*vis_json(const char *src);

/*
 * src as a question shows it to the person answering it (vis_ask.c):
 * escaped as vis() does, every run of more than four blanks (spaces,
 * tabs, Unicode's spaces) written as "<N blanks>", and, when that is
 * longer than max bytes (0: no limit), its head and its tail around
 * "<... N bytes more, answer v to see all ...>", *cut then 1.  Both
 * ends of a command are always shown.  A new string; NULL gives "-".
 */
#define VIS_ASK_MAX	400
char		*vis_ask(const char *src, size_t max, int *cut);

/*
 * The length of the well-formed UTF-8 sequence of two to four bytes at s
 * (at most n bytes) and its code point in *cp; 0 if it is not one
 * (ASCII, overlong, a surrogate, past U+10FFFF, cut short).
 */
size_t		 vis_utf8(const unsigned char *s, size_t n, uint32_t *cp);

#endif
