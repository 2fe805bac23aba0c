/* SPDX-License-Identifier: ISC */
/*
 * The terminal-acting escape sequences of a sandboxed command's output,
 * dropped before they reach the user's terminal: OSC strings
 * other than titles (0, 1, 2) and hyperlinks (8) -- OSC 52 writes the
 * clipboard, colour queries answer into the input -- every DCS, APC, PM
 * and SOS string, and CSI ... t (window operations and reports, which
 * type text into whatever reads the terminal next).  Colours, cursor
 * movement and modes pass: vim, less and top need them.  Stateful: a
 * sequence may span calls.
 */
#ifndef AIRLOCK_TERMFILTER_H
#define AIRLOCK_TERMFILTER_H

#include <stddef.h>

#define TF_SEQ_MAX	256	/* a longer sequence is dropped whole */

struct term_filter {
	int	 state;
	char	 seq[TF_SEQ_MAX];	/* the sequence so far */
	size_t	 len;
	int	 over;			/* it outgrew seq: drop it */
};

void	tf_init(struct term_filter *);
/* Filter n bytes of in into out (room for n + TF_SEQ_MAX); the length. */
size_t	tf_filter(struct term_filter *, const char *in, size_t n, char *out);

#endif
