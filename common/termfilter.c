// SPDX-License-Identifier: ISC
/*
 * Terminal-acting escape sequences out of a command's output
 * (termfilter.h).  untrusted: every byte; the state machine holds at most
 * TF_SEQ_MAX bytes of one sequence and never writes more than it read
 * plus what it held.
 */
#include <string.h>

#include "common/termfilter.h"

enum { TF_TEXT, TF_ESC, TF_CSI, TF_STR, TF_STR_ESC, TF_C2 };

void
tf_init(struct term_filter *f)
{
	memset(f, 0, sizeof(*f));
}

static void
tf_hold(struct term_filter *f, unsigned char c)
{
	if (f->len < sizeof(f->seq))
		f->seq[f->len++] = (char)c;
	else
		f->over = 1;
}

/* End the sequence held: out when keep, else dropped. */
static size_t
tf_end(struct term_filter *f, char *out, int keep)
{
	size_t	n = keep && !f->over ? f->len : 0;

	memcpy(out, f->seq, n);
	f->state = TF_TEXT;
	f->len = 0;
	f->over = 0;
	return n;
}

/* OSC 0, 1, 2 (titles) and 8 (hyperlinks): display, not action. */
static int
tf_osc_ok(const struct term_filter *f)
{
	return f->len > 3 && f->seq[1] == ']' && f->seq[3] == ';' &&
	    strchr("0128", f->seq[2]) != NULL;
}

/*
 * Whatever a terminal would take as the end or the abort of a sequence
 * ends it here too (a byte that cannot continue it is dropped with it
 * and read again as text), so that no sequence can hide inside another.
 * UTF-8 encoded C1 controls (U+0080..U+009F, which some terminals obey
 * as 8-bit CSI, OSC, DCS) never pass.
 */
size_t
tf_filter(struct term_filter *f, const char *in, size_t n, char *out)
{
	size_t	i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		switch (f->state) {
		case TF_TEXT:
			if (c == 0x1b || c == 0xc2) {
				f->state = c == 0x1b ? TF_ESC : TF_C2;
				tf_hold(f, c);
			} else
				out[o++] = (char)c;
			break;
		case TF_C2:
			/* C2 A0..BF is text (U+00A0..); C2 80..9F a C1
			 * control; a lone C2 is not UTF-8: neither passes. */
			if (c >= 0xa0 && c <= 0xbf) {
				tf_hold(f, c);
				o += tf_end(f, out + o, 1);
			} else if (c >= 0x80 && c <= 0x9f)
				o += tf_end(f, out + o, 0);
			else {
				o += tf_end(f, out + o, 0);
				i--;
			}
			break;
		case TF_ESC:
			if (c == '[') {
				tf_hold(f, c);
				f->state = TF_CSI;
			} else if (c == ']' || c == 'P' || c == '_' ||
			    c == '^' || c == 'X') {
				tf_hold(f, c);
				f->state = TF_STR;
			} else if (c >= 0x20 && c <= 0x7e) {
				tf_hold(f, c);	/* charset, keypad, ... */
				o += tf_end(f, out + o, 1);
			} else {
				o += tf_end(f, out + o, 0);
				i--;
			}
			break;
		case TF_CSI:
			if (c >= 0x20 && c <= 0x3f)
				tf_hold(f, c);
			else if (c >= 0x40 && c <= 0x7e) {
				tf_hold(f, c);
				/* CSI ... t: window operations, reports. */
				o += tf_end(f, out + o, c != 't');
			} else {
				o += tf_end(f, out + o, 0);
				i--;
			}
			break;
		case TF_STR:
			if (c == 0x07) {
				tf_hold(f, c);
				o += tf_end(f, out + o, tf_osc_ok(f));
			} else if (c == 0x1b) {
				tf_hold(f, c);
				f->state = TF_STR_ESC;
			} else if (c < 0x20 || c == 0xc2) {
				/* CAN, SUB and other controls abort it; a
				 * string holds no C1 either. */
				o += tf_end(f, out + o, 0);
				i--;
			} else
				tf_hold(f, c);
			break;
		case TF_STR_ESC:
			if (c == '\\') {
				tf_hold(f, c);
				o += tf_end(f, out + o, tf_osc_ok(f));
				break;
			}
			/* ESC starts another sequence: this one is dropped. */
			o += tf_end(f, out + o, 0);
			f->state = TF_ESC;
			tf_hold(f, 0x1b);
			i--;
			break;
		}
	}
	return o;
}
