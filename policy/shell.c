// SPDX-License-Identifier: ISC
/*
 * Shell lexer and recursive-descent parser (see shell.h).  The grammar is
 * POSIX sh's, with the bash additions agents use: $'...', &>, |&, <(...),
 * [[ ... ]], (( ... )), `function`, arrays in assignments.  Nothing is
 * expanded; each simple command is recorded with its words after quote
 * removal and flags that say which words are not literal.
 *
 * Untrusted: every byte parsed here is agent input.  Recursion is bounded
 * by SH_MAX_NEST, memory by SH_MAX_INPUT times a small factor, and every
 * error is reported rather than guessed around.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "policy/shell.h"

struct sbuf {
	char	*p;
	size_t	 len, cap;
};

/* State shared by a parse and every sub-parse it starts. */
struct sh_state {
	struct sh_list	*out;
	char		*err;
	size_t		 errlen;
	int		 failed;
	struct sh_word	*bodies;	/* here-document bodies by id */
	size_t		 nbodies;
};

enum tok_type {
	T_EOF = 0,
	T_WORD,
	T_NEWLINE,
	T_SEMI,
	T_DSEMI,	/* ;; ;& ;;& */
	T_AMP,
	T_AND,
	T_OR,
	T_PIPE,		/* | and |& */
	T_LPAREN,
	T_RPAREN,
	T_REDIR,
};

struct tok {
	enum tok_type	 type;
	struct sh_word	 w;
	int		 assign;	/* word is NAME=... */
	int		 plain;		/* may be a reserved word */
	enum sh_redir_op rop;
	int		 fd;
	int		 strip;		/* <<- */
};

struct pending {
	int	 id;
	char	*delim;
	int	 strip;
	int	 quoted;
};

struct parser {
	struct sh_state	*st;
	const char	*s;
	size_t		 len;
	size_t		 pos;
	int		 depth;
	unsigned	 cflags;	/* flags for commands made here */
	const char	*func;
	int		 dbracket;	/* inside [[ ... ]] */
	int		 have_tok;
	struct tok	 tok;
	struct pending	 pend[SH_MAX_PENDING];
	int		 npend;
};

static int	parse_list(struct parser *);
static int	parse_command(struct parser *);
static int	lex_dollar(struct parser *, struct sbuf *, unsigned *, int);
static int	lex_backtick(struct parser *, struct sbuf *, unsigned *, int);
static int	lex_dquote(struct parser *, struct sbuf *, unsigned *, int);

static void
sb_grow(struct sbuf *b, size_t n)
{
	size_t	ncap;

	if (b->len + n + 1 <= b->cap)
		return;
	ncap = b->cap ? b->cap : 32;
	while (ncap < b->len + n + 1)
		ncap *= 2;
	b->p = xreallocarray(b->p, ncap, 1);
	b->cap = ncap;
}

static void
sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
sb_putc(struct sbuf *b, char c)
{
	sb_grow(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* Take the buffer as a NUL-terminated string (never NULL). */
static char *
sb_take(struct sbuf *b, size_t *lenp)
{
	char	*p;

	if (b->p == NULL) {
		sb_grow(b, 0);
		b->p[0] = '\0';
	}
	p = b->p;
	if (lenp != NULL)
		*lenp = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

static void
word_free(struct sh_word *w)
{
	if (w == NULL)
		return;
	free(w->text);
	w->text = NULL;
	w->len = 0;
}

static void
cmd_free(struct sh_cmd *c)
{
	size_t	i;

	for (i = 0; i < c->nassigns; i++)
		word_free(&c->assigns[i]);
	for (i = 0; i < c->argc; i++)
		word_free(&c->argv[i]);
	for (i = 0; i < c->nredirs; i++)
		word_free(&c->redirs[i].target);
	free(c->assigns);
	free(c->argv);
	free(c->redirs);
	free(c->func);
	memset(c, 0, sizeof(*c));
}

void
sh_list_free(struct sh_list *l)
{
	size_t	i;

	if (l == NULL)
		return;
	for (i = 0; i < l->ncmds; i++)
		cmd_free(&l->cmds[i]);
	free(l->cmds);
	l->cmds = NULL;
	l->ncmds = 0;
}

static int
perr(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
perr(struct parser *p, const char *fmt, ...)
{
	va_list	ap;

	if (!p->st->failed && p->st->err != NULL && p->st->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(p->st->err, p->st->errlen, fmt, ap);
		va_end(ap);
	}
	p->st->failed = 1;
	return -1;
}

int
sh_is_name(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int
is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
	    c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

static int
peekc(struct parser *p, size_t off)
{
	return p->pos + off < p->len ? (unsigned char)p->s[p->pos + off] : -1;
}

/* Enter one level of nesting; every recursive path goes through here. */
static int
nest_enter(struct parser *p)
{
	if (++p->depth > SH_MAX_NEST)
		return perr(p, "nested too deeply (limit %d)", SH_MAX_NEST);
	return 0;
}

/*
 * Parse a separate buffer (backtick contents, a here-document body) with
 * the same shared state: its commands land in the same list.  mode 0: a
 * command list; mode 1: double-quote-like text (here-document body).
 */
static int
parse_sub(struct parser *p, const char *s, size_t len, int mode,
    unsigned *flags)
{
	struct parser	 q;
	struct sbuf	 b = { NULL, 0, 0 };
	int		 rv;

	memset(&q, 0, sizeof(q));
	q.st = p->st;
	q.s = s;
	q.len = len;
	q.depth = p->depth;
	q.cflags = p->cflags | SH_C_SUBST;
	q.func = p->func;
	if (nest_enter(&q) == -1)
		return -1;
	if (mode == 0) {
		rv = parse_list(&q);
		if (rv == 0 && q.have_tok && q.tok.type != T_EOF)
			rv = perr(p, "unexpected token in a command "
			    "substitution");
		if (rv == 0 && q.npend > 0)
			rv = perr(p, "here-document without body");
	} else {
		rv = lex_dquote(&q, &b, flags, 1);
		free(b.p);
	}
	if (q.have_tok)
		word_free(&q.tok.w);
	while (q.npend > 0)
		free(q.pend[--q.npend].delim);
	return rv;
}

/* $'...': ANSI-C quoting. p->pos is just after the opening quote. */
static int
lex_ansi(struct parser *p, struct sbuf *b)
{
	int	c, v, i, cut = 0;
	char	ch;

	for (;;) {
		if (p->pos >= p->len)
			return perr(p, "unterminated $'...'");
		c = (unsigned char)p->s[p->pos++];
		if (c == '\'')
			return 0;
		if (c != '\\') {
			if (!cut)
				sb_putc(b, (char)c);
			continue;
		}
		if (p->pos >= p->len)
			return perr(p, "unterminated $'...'");
		c = (unsigned char)p->s[p->pos++];
		v = -1;
		switch (c) {
		case 'a': v = '\a'; break;
		case 'b': v = '\b'; break;
		case 'e': case 'E': v = 033; break;
		case 'f': v = '\f'; break;
		case 'n': v = '\n'; break;
		case 'r': v = '\r'; break;
		case 't': v = '\t'; break;
		case 'v': v = '\v'; break;
		case '\\': case '\'': case '"': case '?': v = c; break;
		case 'c':
			if (p->pos < p->len)
				v = p->s[p->pos++] & 0x1f;
			break;
		case 'x':
			v = 0;
			for (i = 0; i < 2 && p->pos < p->len; i++) {
				c = (unsigned char)p->s[p->pos];
				if (c >= '0' && c <= '9')
					v = v * 16 + c - '0';
				else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
					v = v * 16 + (c | 0x20) - 'a' + 10;
				else
					break;
				p->pos++;
			}
			if (i == 0)
				v = -2;	/* "\x" alone stays as written */
			break;
		case 'u': case 'U':
			/*
			 * Unicode escapes: the command name would be a
			 * non-ASCII word, never a known program; keep the
			 * escape as written rather than encoding UTF-8.
			 */
			v = -2;
			break;
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (i = 0; i < 2 && p->pos < p->len; i++) {
					c = (unsigned char)p->s[p->pos];
					if (c < '0' || c > '7')
						break;
					v = v * 8 + c - '0';
					p->pos++;
				}
				v &= 0xff;
			} else
				v = -2;
			break;
		}
		if (cut)
			continue;
		if (v == -2 || v == -1) {
			sb_putc(b, '\\');
			sb_putc(b, (char)c);
		} else if (v == 0) {
			/* bash ends the string at a NUL byte. */
			cut = 1;
		} else {
			ch = (char)v;
			sb_putc(b, ch);
		}
	}
}

/*
 * Scan ${...} or $((...)) after its opening, up to the matching close,
 * walking through nested quotes and substitutions so that commands inside
 * are parsed too.  close: '}' or ')' (for arithmetic, which ends in "))").
 */
static int
scan_nested(struct parser *p, int close, int in_dq)
{
	struct sbuf	 scratch = { NULL, 0, 0 };
	unsigned	 fl = 0;
	int		 depth = 0, c, rv = 0;

	while (rv == 0) {
		if (p->pos >= p->len) {
			rv = perr(p, "unterminated %s",
			    close == '}' ? "${...}" : "$((...))");
			break;
		}
		c = (unsigned char)p->s[p->pos];
		if (c == '\\') {
			p->pos += 2;
			continue;
		}
		if (c == '\'' && !in_dq) {
			const char *q = memchr(p->s + p->pos + 1, '\'',
			    p->len - p->pos - 1);
			if (q == NULL) {
				rv = perr(p, "unterminated single quote");
				break;
			}
			p->pos = (size_t)(q - p->s) + 1;
			continue;
		}
		if (c == '"') {
			p->pos++;
			rv = lex_dquote(p, &scratch, &fl, 0);
			continue;
		}
		if (c == '$') {
			p->pos++;
			rv = lex_dollar(p, &scratch, &fl, 1);
			continue;
		}
		if (c == '`') {
			p->pos++;
			rv = lex_backtick(p, &scratch, &fl, in_dq);
			continue;
		}
		if (close == '}') {
			if (c == '{')
				depth++;
			else if (c == '}' && depth-- == 0) {
				p->pos++;
				break;
			}
		} else {
			if (c == '(')
				depth++;
			else if (c == ')') {
				if (depth == 0) {
					if (peekc(p, 1) != ')') {
						rv = perr(p, "bad arithmetic "
						    "expression");
						break;
					}
					p->pos += 2;
					break;
				}
				depth--;
			}
		}
		p->pos++;
	}
	free(scratch.p);
	return rv;
}

/* $(...) and <(...) / >(...): a nested command list ended by ')'. */
static int
lex_cmdsubst(struct parser *p)
{
	unsigned	 save_cflags = p->cflags;
	int		 save_db = p->dbracket, rv;

	if (nest_enter(p) == -1)
		return -1;
	p->cflags |= SH_C_SUBST;
	p->dbracket = 0;
	rv = parse_list(p);
	if (rv == 0) {
		if (!p->have_tok || p->tok.type != T_RPAREN)
			rv = perr(p, "unterminated $(...)");
		else
			p->have_tok = 0;
	}
	p->cflags = save_cflags;
	p->dbracket = save_db;
	p->depth--;
	return rv;
}

/*
 * After '$'.  Appends the expansion as written to b and flags it.
 */
static int
lex_dollar(struct parser *p, struct sbuf *b, unsigned *flags, int in_dq)
{
	size_t	start = p->pos - 1;
	int	c = peekc(p, 0), rv = 0;

	if (c == '{') {
		p->pos++;
		if (nest_enter(p) == -1)
			return -1;
		rv = scan_nested(p, '}', in_dq);
		p->depth--;
	} else if (c == '(' && peekc(p, 1) == '(') {
		p->pos += 2;
		if (nest_enter(p) == -1)
			return -1;
		rv = scan_nested(p, ')', in_dq);
		p->depth--;
	} else if (c == '(') {
		p->pos++;
		rv = lex_cmdsubst(p);
	} else if (c != -1 && sh_is_name(&p->s[p->pos], 1)) {
		while (p->pos < p->len && (p->s[p->pos] == '_' ||
		    (p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') ||
		    (p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z') ||
		    (p->s[p->pos] >= '0' && p->s[p->pos] <= '9')))
			p->pos++;
	} else if (c != -1 && strchr("0123456789@*#?$!-", c) != NULL) {
		p->pos++;
	} else {
		/* A lone '$' is literal. */
		sb_putc(b, '$');
		return 0;
	}
	if (rv == -1)
		return -1;
	sb_put(b, p->s + start, p->pos - start);
	*flags |= SH_W_EXPAND | (in_dq ? 0 : SH_W_UNQ_EXPAND);
	return 0;
}

/* After '`': the old command substitution, with its own unescaping. */
static int
lex_backtick(struct parser *p, struct sbuf *b, unsigned *flags, int in_dq)
{
	struct sbuf	 inner = { NULL, 0, 0 };
	size_t		 start = p->pos - 1;
	int		 c, rv;

	for (;;) {
		if (p->pos >= p->len) {
			free(inner.p);
			return perr(p, "unterminated `...`");
		}
		c = (unsigned char)p->s[p->pos++];
		if (c == '`')
			break;
		if (c == '\\' && p->pos < p->len) {
			int n = (unsigned char)p->s[p->pos];
			if (n == '`' || n == '\\' || n == '$' ||
			    (in_dq && n == '"')) {
				sb_putc(&inner, (char)n);
				p->pos++;
				continue;
			}
		}
		sb_putc(&inner, (char)c);
	}
	rv = parse_sub(p, inner.p ? inner.p : "", inner.len, 0, NULL);
	free(inner.p);
	if (rv == -1)
		return -1;
	sb_put(b, p->s + start, p->pos - start);
	*flags |= SH_W_EXPAND | (in_dq ? 0 : SH_W_UNQ_EXPAND);
	return 0;
}

/*
 * Double-quoted text after '"' (or a here-document body when heredoc is
 * set, which ends at the end of the buffer instead of at '"').
 */
static int
lex_dquote(struct parser *p, struct sbuf *b, unsigned *flags, int heredoc)
{
	int	c, n;

	for (;;) {
		if (p->pos >= p->len) {
			if (heredoc)
				return 0;
			return perr(p, "unterminated double quote");
		}
		c = (unsigned char)p->s[p->pos++];
		if (c == '"' && !heredoc)
			return 0;
		if (c == '\\' && p->pos < p->len) {
			n = (unsigned char)p->s[p->pos];
			if (n == '\n') {
				p->pos++;
				continue;
			}
			if (n == '$' || n == '`' || n == '\\' ||
			    (n == '"' && !heredoc)) {
				sb_putc(b, (char)n);
				p->pos++;
				continue;
			}
			sb_putc(b, '\\');
			continue;
		}
		if (c == '$') {
			if (lex_dollar(p, b, flags, 1) == -1)
				return -1;
			continue;
		}
		if (c == '`') {
			if (lex_backtick(p, b, flags, 1) == -1)
				return -1;
			continue;
		}
		sb_putc(b, (char)c);
	}
}

/* Bash array assignment: NAME=( words ... ).  p->pos is at '('. */
static int
lex_array(struct parser *p, struct sbuf *b, unsigned *flags)
{
	int	c;

	p->pos++;
	sb_putc(b, '(');
	for (;;) {
		if (p->pos >= p->len)
			return perr(p, "unterminated array assignment");
		c = (unsigned char)p->s[p->pos];
		if (c == ')') {
			p->pos++;
			sb_putc(b, ')');
			return 0;
		}
		if (is_blank(c) || c == '\n') {
			p->pos++;
			sb_putc(b, ' ');
			continue;
		}
		if (c == '\'') {
			const char *q = memchr(p->s + p->pos + 1, '\'',
			    p->len - p->pos - 1);
			if (q == NULL)
				return perr(p, "unterminated single quote");
			sb_put(b, p->s + p->pos + 1,
			    (size_t)(q - p->s) - p->pos - 1);
			p->pos = (size_t)(q - p->s) + 1;
			continue;
		}
		if (c == '"') {
			p->pos++;
			if (lex_dquote(p, b, flags, 0) == -1)
				return -1;
			continue;
		}
		if (c == '$') {
			p->pos++;
			if (lex_dollar(p, b, flags, 0) == -1)
				return -1;
			continue;
		}
		if (c == '`') {
			p->pos++;
			if (lex_backtick(p, b, flags, 0) == -1)
				return -1;
			continue;
		}
		if (c == '\\') {
			p->pos++;
			if (p->pos < p->len)
				sb_putc(b, p->s[p->pos++]);
			continue;
		}
		if (c == ';' || c == '&' || c == '|' || c == '<' ||
		    c == '>' || c == '(')
			return perr(p, "unexpected '%c' in array", c);
		sb_putc(b, (char)c);
		p->pos++;
	}
}

/*
 * One word, starting at p->pos.  Sets t->assign when it is NAME=value and
 * t->plain when it has no quoting or expansion (a reserved-word candidate).
 */
static int
lex_word(struct parser *p, struct tok *t)
{
	struct sbuf	 b = { NULL, 0, 0 };
	unsigned	 fl = 0;
	int		 c, name_ok = 1, brace_open = 0, brace_sep = 0;
	int		 bracket_open = 0, first = 1, is_assign = 0;
	size_t		 nchars = 0, start = p->pos;

	for (;;) {
		if (p->pos >= p->len)
			break;
		c = (unsigned char)p->s[p->pos];
		if ((c == '<' || c == '>') && peekc(p, 1) == '(' &&
		    !p->dbracket) {
			size_t ps = p->pos;

			p->pos += 2;
			if (lex_cmdsubst(p) == -1)
				goto fail;
			sb_put(&b, p->s + ps, p->pos - ps);
			fl |= SH_W_PROCSUB | SH_W_EXPAND;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (is_meta(c)) {
			/*
			 * Inside [[ ]] the operators && || ( ) < > are words
			 * of the test, not shell syntax.
			 */
			if (!p->dbracket || is_blank(c) || c == '\n' ||
			    c == ';' || nchars > 0)
				break;
			if ((c == '&' || c == '|') && peekc(p, 1) == c) {
				sb_putc(&b, (char)c);
				sb_putc(&b, (char)c);
				p->pos += 2;
				nchars += 2;
				break;
			}
			if (c == '&' || c == '|') {
				perr(p, "syntax error in [[ ]]");
				goto fail;
			}
			sb_putc(&b, (char)c);
			p->pos++;
			nchars++;
			break;
		}
		nchars++;
		if (c == '\\') {
			if (peekc(p, 1) == '\n') {
				p->pos += 2;
				nchars--;
				continue;
			}
			p->pos++;
			if (p->pos < p->len)
				sb_putc(&b, p->s[p->pos++]);
			else
				sb_putc(&b, '\\');
			fl |= SH_W_QUOTED;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '\'') {
			const char *q = memchr(p->s + p->pos + 1, '\'',
			    p->len - p->pos - 1);
			if (q == NULL) {
				perr(p, "unterminated single quote");
				goto fail;
			}
			sb_put(&b, p->s + p->pos + 1,
			    (size_t)(q - p->s) - p->pos - 1);
			p->pos = (size_t)(q - p->s) + 1;
			fl |= SH_W_QUOTED;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '"') {
			p->pos++;
			if (lex_dquote(p, &b, &fl, 0) == -1)
				goto fail;
			fl |= SH_W_QUOTED;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '$' && peekc(p, 1) == '\'') {
			p->pos += 2;
			if (lex_ansi(p, &b) == -1)
				goto fail;
			fl |= SH_W_QUOTED;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '$' && peekc(p, 1) == '"') {
			/* $"..." (locale translation) is "..." here. */
			p->pos += 2;
			if (lex_dquote(p, &b, &fl, 0) == -1)
				goto fail;
			fl |= SH_W_QUOTED;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '$') {
			p->pos++;
			if (lex_dollar(p, &b, &fl, 0) == -1)
				goto fail;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '`') {
			p->pos++;
			if (lex_backtick(p, &b, &fl, 0) == -1)
				goto fail;
			name_ok = 0;
			first = 0;
			continue;
		}
		if (c == '=' && name_ok && !is_assign && b.len > 0 &&
		    !t->assign) {
			size_t n = b.len;
			if (b.p[n - 1] == '+')
				n--;
			if (sh_is_name(b.p, n)) {
				is_assign = 1;
				sb_putc(&b, '=');
				p->pos++;
				if (peekc(p, 0) == '(' ) {
					if (lex_array(p, &b, &fl) == -1)
						goto fail;
				}
				first = 0;
				continue;
			}
		}
		if (c == '~' && first)
			fl |= SH_W_TILDE;
		if (c == '*' || c == '?')
			fl |= SH_W_GLOB;
		if (c == '[')
			bracket_open = 1;
		if (c == ']' && bracket_open)
			fl |= SH_W_GLOB;
		if (c == '{')
			brace_open = 1;
		if ((c == ',' || (c == '.' && peekc(p, 1) == '.')) &&
		    brace_open)
			brace_sep = 1;
		if (c == '}' && brace_sep)
			fl |= SH_W_BRACE;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '+'))
			name_ok = 0;
		sb_putc(&b, (char)c);
		p->pos++;
		first = 0;
	}
	if (p->pos == start) {
		perr(p, "unexpected character '%c'", p->pos < p->len ?
		    p->s[p->pos] : ' ');
		goto fail;
	}
	t->type = T_WORD;
	t->assign = is_assign;
	t->w.flags = fl;
	t->w.text = sb_take(&b, &t->w.len);
	t->plain = (fl & (SH_W_QUOTED | SH_W_EXPAND)) == 0;
	return 0;
fail:
	free(b.p);
	return -1;
}

/* Read the bodies of pending here-documents after a newline. */
static int
read_heredocs(struct parser *p)
{
	struct sbuf	 body = { NULL, 0, 0 };
	struct pending	*h;
	struct sh_word	*w;
	const char	*line, *nl;
	size_t		 ll, dl;
	int		 i, found;
	unsigned	 fl;

	for (i = 0; i < p->npend; i++) {
		h = &p->pend[i];
		dl = strlen(h->delim);
		found = 0;
		while (p->pos < p->len) {
			line = p->s + p->pos;
			nl = memchr(line, '\n', p->len - p->pos);
			ll = nl ? (size_t)(nl - line) : p->len - p->pos;
			p->pos += ll + (nl ? 1 : 0);
			if (h->strip)
				while (ll > 0 && *line == '\t') {
					line++;
					ll--;
				}
			if (ll == dl && memcmp(line, h->delim, dl) == 0) {
				found = 1;
				break;
			}
			sb_put(&body, line, ll);
			sb_putc(&body, '\n');
		}
		if (!found) {
			free(body.p);
			return perr(p, "here-document '%s' has no end",
			    h->delim);
		}
		fl = h->quoted ? SH_W_QUOTED : 0;
		if (!h->quoted && body.len > 0 &&
		    (memchr(body.p, '$', body.len) != NULL ||
		    memchr(body.p, '`', body.len) != NULL)) {
			/* Unquoted: $(...) and `...` in it run. */
			if (parse_sub(p, body.p, body.len, 1, &fl) == -1) {
				free(body.p);
				return -1;
			}
		}
		w = &p->st->bodies[h->id];
		w->flags = fl;
		w->text = sb_take(&body, &w->len);
		free(h->delim);
		h->delim = NULL;
	}
	p->npend = 0;
	return 0;
}

/* Redirection operators, longest first; "&>" takes no fd number. */
static const struct {
	const char		*op;
	enum sh_redir_op	 rop;
	int			 strip;
} redirs[] = {
	{ "<<<", SH_R_HERESTR, 0 }, { "<<-", SH_R_HEREDOC, 1 },
	{ "&>>", SH_R_APPENDERR, 0 }, { "<<", SH_R_HEREDOC, 0 },
	{ "<>", SH_R_RDWR, 0 }, { "<&", SH_R_DUPIN, 0 },
	{ ">>", SH_R_APPEND, 0 }, { ">|", SH_R_CLOBBER, 0 },
	{ ">&", SH_R_DUPOUT, 0 }, { "&>", SH_R_OUTERR, 0 },
	{ "<", SH_R_IN, 0 }, { ">", SH_R_OUT, 0 },
};

static int
next_tok(struct parser *p, struct tok *t)
{
	const char	*op;
	int		 c, c1, c2;
	size_t		 save, i, k;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	for (;;) {
		while (p->pos < p->len && is_blank(p->s[p->pos]))
			p->pos++;
		if (peekc(p, 0) == '\\' && peekc(p, 1) == '\n') {
			p->pos += 2;
			continue;
		}
		if (peekc(p, 0) == '#' && !p->dbracket) {
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		}
		break;
	}
	if (p->pos >= p->len) {
		t->type = T_EOF;
		return 0;
	}
	c = peekc(p, 0);
	c1 = peekc(p, 1);
	c2 = peekc(p, 2);
	if (c == '\n') {
		p->pos++;
		t->type = T_NEWLINE;
		if (p->npend > 0)
			return read_heredocs(p);
		return 0;
	}
	if (p->dbracket && c != ';')
		return lex_word(p, t);
	/* An fd number directly before a redirection operator. */
	if (c >= '0' && c <= '9') {
		save = p->pos;
		while (p->pos < p->len && p->s[p->pos] >= '0' &&
		    p->s[p->pos] <= '9' && p->pos - save < 4)
			p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '<' ||
		    p->s[p->pos] == '>') && peekc(p, 1) != '(') {
			t->fd = atoi(p->s + save);
			c = peekc(p, 0);
			c1 = peekc(p, 1);
			c2 = peekc(p, 2);
		} else {
			p->pos = save;
			return lex_word(p, t);
		}
	}
	t->type = T_REDIR;
	/* Every word passes here: only the operators' first bytes look. */
	for (i = 0; (c == '<' || c == '>' || c == '&') &&
	    i < sizeof(redirs) / sizeof(redirs[0]); i++) {
		op = redirs[i].op;
		for (k = 0; op[k] != '\0' && peekc(p, k) == op[k]; k++)
			;
		if (op[k] != '\0')
			continue;
		/* "<(" and ">(" are process substitutions, not redirections. */
		if (op[0] != '&' && c1 == '(')
			break;
		if (op[0] == '&' && t->fd != -1)
			return perr(p, "bad redirection");
		t->rop = redirs[i].rop;
		t->strip = redirs[i].strip;
		p->pos += k;
		return 0;
	}
	p->pos++;
	switch (c) {
	case '&':
		if (c1 == '&') {
			p->pos++;
			t->type = T_AND;
		} else
			t->type = T_AMP;
		return 0;
	case '|':
		if (c1 == '|') {
			p->pos++;
			t->type = T_OR;
		} else {
			if (c1 == '&')
				p->pos++;
			t->type = T_PIPE;
		}
		return 0;
	case ';':
		if (c1 == ';') {
			p->pos++;
			if (c2 == '&')
				p->pos++;
			t->type = T_DSEMI;
		} else if (c1 == '&') {
			p->pos++;
			t->type = T_DSEMI;
		} else
			t->type = T_SEMI;
		return 0;
	case '(':
		t->type = T_LPAREN;
		return 0;
	case ')':
		t->type = T_RPAREN;
		return 0;
	default:
		p->pos--;
		return lex_word(p, t);
	}
}

static struct tok *
peek(struct parser *p)
{
	struct tok	t;

	/*
	 * Lex into a local: a word may contain $(...), whose sub-parse
	 * peeks and consumes tokens of its own through p->tok.
	 */
	if (!p->have_tok) {
		if (next_tok(p, &t) == -1)
			return NULL;
		p->tok = t;
		p->have_tok = 1;
	}
	return &p->tok;
}

/* Consume the peeked token; its word, if any, now belongs to the caller. */
static void
consume(struct parser *p)
{
	p->have_tok = 0;
}

static void
drop(struct parser *p)
{
	if (p->have_tok)
		word_free(&p->tok.w);
	p->have_tok = 0;
}

/*
 * Reserved words are at most 8 bytes and start with one of a few letters;
 * checking that first keeps strcmp() off the path of ordinary words.
 */
static int
maybe_reserved(const struct tok *t)
{
	return t->type == T_WORD && t->plain && t->w.len <= 8 &&
	    strchr("tefdwiucs{}!", t->w.text[0]) != NULL &&
	    t->w.text[0] != '\0';
}

static int
tok_is(struct tok *t, const char *word)
{
	return t != NULL && maybe_reserved(t) && strcmp(t->w.text, word) == 0;
}

static int
is_reserved_end(struct tok *t)
{
	static const char *const ends[] = { "then", "else", "elif", "fi",
	    "do", "done", "esac", "}", NULL };
	int	i;

	if (!maybe_reserved(t))
		return 0;
	for (i = 0; ends[i] != NULL; i++)
		if (strcmp(t->w.text, ends[i]) == 0)
			return 1;
	return 0;
}

static int
skip_newlines(struct parser *p)
{
	struct tok *t;

	while ((t = peek(p)) != NULL && t->type == T_NEWLINE)
		consume(p);
	return t == NULL ? -1 : 0;
}

static struct sh_cmd *
new_cmd(struct parser *p)
{
	struct sh_list	*l = p->st->out;
	struct sh_cmd	*c;

	if (l->ncmds >= SH_MAX_CMDS) {
		perr(p, "too many commands (limit %d)", SH_MAX_CMDS);
		return NULL;
	}
	l->cmds = xreallocarray(l->cmds, l->ncmds + 1, sizeof(*l->cmds));
	c = &l->cmds[l->ncmds++];
	memset(c, 0, sizeof(*c));
	c->flags = p->cflags;
	if (p->func != NULL) {
		c->func = xstrdup(p->func);
		c->flags |= SH_C_FUNCBODY;
	}
	return c;
}

/* Words and redirections of one simple command, built before it is listed. */
struct cbuild {
	struct sh_word	*assigns;
	size_t		 nassigns, cassigns;
	struct sh_word	*argv;
	size_t		 argc, cargv;
	struct sh_redir	*redirs;
	size_t		 nredirs, credirs;
};

static void
cbuild_free(struct cbuild *cb)
{
	struct sh_cmd	c;

	memset(&c, 0, sizeof(c));
	c.assigns = cb->assigns;
	c.nassigns = cb->nassigns;
	c.argv = cb->argv;
	c.argc = cb->argc;
	c.redirs = cb->redirs;
	c.nredirs = cb->nredirs;
	cmd_free(&c);
	memset(cb, 0, sizeof(*cb));
}

static int
cbuild_emit(struct parser *p, struct cbuild *cb, unsigned extra)
{
	struct sh_cmd	*c;

	if ((c = new_cmd(p)) == NULL) {
		cbuild_free(cb);
		return -1;
	}
	c->assigns = cb->assigns;
	c->nassigns = cb->nassigns;
	c->argv = cb->argv;
	c->argc = cb->argc;
	c->redirs = cb->redirs;
	c->nredirs = cb->nredirs;
	c->flags |= extra;
	memset(cb, 0, sizeof(*cb));
	return 0;
}

static int
add_word(struct parser *p, struct sh_word **v, size_t *n, size_t *cap,
    struct sh_word *w)
{
	if (*n >= SH_MAX_WORDS) {
		word_free(w);
		return perr(p, "too many words (limit %d)", SH_MAX_WORDS);
	}
	if (*n >= *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = *w;
	memset(w, 0, sizeof(*w));
	return 0;
}

/* A redirection token has been peeked: read it and its target. */
static int
parse_redir(struct parser *p, struct cbuild *cb)
{
	struct tok	 rt = p->tok, *t;
	struct sh_redir	*r;
	struct pending	*h;
	int		 save_db = p->dbracket;

	consume(p);
	p->dbracket = 0;
	t = peek(p);
	p->dbracket = save_db;
	if (t == NULL)
		return -1;
	if (t->type != T_WORD)
		return perr(p, "redirection without a target");
	if (cb->nredirs >= SH_MAX_WORDS)
		return perr(p, "too many redirections");
	if (cb->nredirs >= cb->credirs) {
		cb->credirs = cb->credirs ? cb->credirs * 2 : 4;
		cb->redirs = xreallocarray(cb->redirs, cb->credirs,
		    sizeof(*cb->redirs));
	}
	r = &cb->redirs[cb->nredirs++];
	memset(r, 0, sizeof(*r));
	r->fd = rt.fd;
	r->op = rt.rop;
	r->hd_id = -1;
	r->target = t->w;
	consume(p);
	switch (r->op) {
	case SH_R_OUT:
	case SH_R_APPEND:
	case SH_R_CLOBBER:
	case SH_R_RDWR:
	case SH_R_OUTERR:
	case SH_R_APPENDERR:
		r->writes = 1;
		break;
	case SH_R_DUPOUT:
	case SH_R_DUPIN:
		/* >&file (not a number or '-') is bash for &>file. */
		if (r->target.len > 0 && strspn(r->target.text,
		    "0123456789") != r->target.len &&
		    strcmp(r->target.text, "-") != 0 &&
		    !(r->target.len > 1 &&
		    r->target.text[r->target.len - 1] == '-' &&
		    strspn(r->target.text, "0123456789") ==
		    r->target.len - 1)) {
			if (r->op == SH_R_DUPIN && !(r->target.flags &
			    SH_W_NONLITERAL))
				return perr(p, "bad fd in <&");
			r->writes = r->op == SH_R_DUPOUT;
		}
		break;
	case SH_R_HEREDOC:
		if (p->npend >= SH_MAX_PENDING)
			return perr(p, "too many here-documents");
		if (p->st->nbodies >= SH_MAX_CMDS)
			return perr(p, "too many here-documents");
		h = &p->pend[p->npend++];
		h->id = (int)p->st->nbodies;
		p->st->bodies = xreallocarray(p->st->bodies,
		    p->st->nbodies + 1, sizeof(*p->st->bodies));
		memset(&p->st->bodies[p->st->nbodies++], 0,
		    sizeof(struct sh_word));
		h->delim = r->target.text;
		h->strip = rt.strip;
		h->quoted = (r->target.flags & SH_W_QUOTED) != 0;
		r->target.text = NULL;
		r->target.len = 0;
		r->hd_id = h->id;
		break;
	default:
		break;
	}
	return 0;
}

/* Redirections after a compound command. */
static int
parse_trailing_redirs(struct parser *p, size_t first)
{
	struct cbuild	 cb;
	struct tok	*t;
	size_t		 i, j;

	memset(&cb, 0, sizeof(cb));
	while ((t = peek(p)) != NULL && t->type == T_REDIR)
		if (parse_redir(p, &cb) == -1) {
			cbuild_free(&cb);
			return -1;
		}
	if (t == NULL) {
		cbuild_free(&cb);
		return -1;
	}
	if (cb.nredirs == 0)
		return 0;
	/* Every command in the compound reads or writes through them. */
	for (j = 0; j < cb.nredirs; j++)
		if (cb.redirs[j].op == SH_R_HEREDOC ||
		    cb.redirs[j].op == SH_R_HERESTR ||
		    cb.redirs[j].op == SH_R_IN)
			for (i = first; i < p->st->out->ncmds; i++)
				p->st->out->cmds[i].flags |= SH_C_PIPE_IN;
	return cbuild_emit(p, &cb, SH_C_COMPOUND);
}

static int
expect_word(struct parser *p, const char *w)
{
	struct tok *t;

	if ((t = peek(p)) == NULL)
		return -1;
	if (!tok_is(t, w))
		return perr(p, "expected '%s'", w);
	drop(p);
	return 0;
}

/* (( ... )) as a command; p->pos is just after the first '('. */
static int
parse_arith_cmd(struct parser *p)
{
	int	rv;

	p->pos++;
	if (nest_enter(p) == -1)
		return -1;
	rv = scan_nested(p, ')', 1);
	p->depth--;
	return rv;
}

static int
parse_case(struct parser *p)
{
	struct tok	*t;

	if ((t = peek(p)) == NULL)
		return -1;
	if (t->type != T_WORD)
		return perr(p, "case without a word");
	drop(p);
	if (skip_newlines(p) == -1 || expect_word(p, "in") == -1)
		return -1;
	for (;;) {
		if (skip_newlines(p) == -1 || (t = peek(p)) == NULL)
			return -1;
		if (tok_is(t, "esac")) {
			drop(p);
			return 0;
		}
		if (t->type == T_LPAREN) {
			consume(p);
			if ((t = peek(p)) == NULL)
				return -1;
		}
		/* Patterns: word ( '|' word )* ')' */
		for (;;) {
			if (t->type != T_WORD)
				return perr(p, "bad case pattern");
			drop(p);
			if ((t = peek(p)) == NULL)
				return -1;
			if (t->type == T_RPAREN) {
				consume(p);
				break;
			}
			if (t->type != T_PIPE)
				return perr(p, "bad case pattern");
			consume(p);
			if ((t = peek(p)) == NULL)
				return -1;
		}
		if (parse_list(p) == -1 || (t = peek(p)) == NULL)
			return -1;
		if (t->type == T_DSEMI) {
			consume(p);
			continue;
		}
		if (tok_is(t, "esac")) {
			drop(p);
			return 0;
		}
		return perr(p, "expected ';;' or 'esac'");
	}
}

static int
parse_for(struct parser *p)
{
	struct tok	*t;

	if ((t = peek(p)) == NULL)
		return -1;
	if (t->type == T_LPAREN && peekc(p, 0) == '(') {
		/* for (( init; cond; step )) */
		consume(p);
		if (parse_arith_cmd(p) == -1)
			return -1;
	} else {
		if (t->type != T_WORD || !sh_is_name(t->w.text, t->w.len))
			return perr(p, "bad for variable");
		drop(p);
		if (skip_newlines(p) == -1 || (t = peek(p)) == NULL)
			return -1;
		if (tok_is(t, "in")) {
			drop(p);
			while ((t = peek(p)) != NULL && t->type == T_WORD)
				drop(p);
			if (t == NULL)
				return -1;
		}
	}
	if ((t = peek(p)) == NULL)
		return -1;
	if (t->type == T_SEMI)
		consume(p);
	if (skip_newlines(p) == -1)
		return -1;
	if ((t = peek(p)) == NULL)
		return -1;
	if (tok_is(t, "{")) {
		/* bash accepts for ...; { list; } */
		drop(p);
		if (parse_list(p) == -1)
			return -1;
		return expect_word(p, "}");
	}
	if (expect_word(p, "do") == -1 || parse_list(p) == -1)
		return -1;
	return expect_word(p, "done");
}

static int
parse_compound(struct parser *p, const char *kw)
{
	struct tok	*t;

	if (strcmp(kw, "{") == 0) {
		if (parse_list(p) == -1)
			return -1;
		return expect_word(p, "}");
	}
	if (strcmp(kw, "if") == 0) {
		if (parse_list(p) == -1 || expect_word(p, "then") == -1 ||
		    parse_list(p) == -1)
			return -1;
		for (;;) {
			if ((t = peek(p)) == NULL)
				return -1;
			if (tok_is(t, "elif")) {
				drop(p);
				if (parse_list(p) == -1 ||
				    expect_word(p, "then") == -1 ||
				    parse_list(p) == -1)
					return -1;
				continue;
			}
			if (tok_is(t, "else")) {
				drop(p);
				if (parse_list(p) == -1)
					return -1;
			}
			return expect_word(p, "fi");
		}
	}
	if (strcmp(kw, "while") == 0 || strcmp(kw, "until") == 0) {
		if (parse_list(p) == -1 || expect_word(p, "do") == -1 ||
		    parse_list(p) == -1)
			return -1;
		return expect_word(p, "done");
	}
	if (strcmp(kw, "for") == 0 || strcmp(kw, "select") == 0)
		return parse_for(p);
	if (strcmp(kw, "case") == 0)
		return parse_case(p);
	return perr(p, "unexpected '%s'", kw);
}

static int
is_compound_kw(const char *s)
{
	return strcmp(s, "{") == 0 || strcmp(s, "if") == 0 ||
	    strcmp(s, "while") == 0 || strcmp(s, "until") == 0 ||
	    strcmp(s, "for") == 0 || strcmp(s, "select") == 0 ||
	    strcmp(s, "case") == 0;
}

/* A function body: one compound command, recorded under its name. */
static int
parse_funcdef(struct parser *p, char *name)
{
	const char	*save = p->func;
	struct tok	*t;
	int		 rv;

	if (skip_newlines(p) == -1) {
		free(name);
		return -1;
	}
	p->func = name;
	if ((t = peek(p)) == NULL)
		rv = -1;
	else if (!(t->type == T_LPAREN || (t->type == T_WORD && t->plain &&
	    is_compound_kw(t->w.text))))
		rv = perr(p, "function body must be a compound command");
	else
		rv = parse_command(p);
	p->func = save;
	free(name);
	return rv;
}

static int
parse_simple(struct parser *p)
{
	struct cbuild	 cb;
	struct tok	*t;
	char		*name;

	memset(&cb, 0, sizeof(cb));
	for (;;) {
		if ((t = peek(p)) == NULL)
			goto fail;
		if (t->type == T_REDIR) {
			if (parse_redir(p, &cb) == -1)
				goto fail;
			continue;
		}
		if (t->type != T_WORD)
			break;
		if (p->dbracket && t->plain && strcmp(t->w.text, "]]") == 0)
			p->dbracket = 0;
		if (cb.argc == 0 && t->assign) {
			if (add_word(p, &cb.assigns, &cb.nassigns,
			    &cb.cassigns, &t->w) == -1)
				goto fail;
			consume(p);
			continue;
		}
		if (add_word(p, &cb.argv, &cb.argc, &cb.cargv, &t->w) == -1)
			goto fail;
		consume(p);
		if (cb.argc == 1 && (cb.argv[0].flags & (SH_W_QUOTED |
		    SH_W_EXPAND)) == 0 && strcmp(cb.argv[0].text, "[[") == 0) {
			p->dbracket = 1;
			continue;
		}
		if (cb.argc == 1 && cb.nassigns == 0 && cb.nredirs == 0) {
			if ((t = peek(p)) == NULL)
				goto fail;
			if (t->type == T_LPAREN) {
				/* name () compound-command */
				consume(p);
				if ((t = peek(p)) == NULL)
					goto fail;
				if (t->type != T_RPAREN) {
					perr(p, "syntax error near '('");
					goto fail;
				}
				consume(p);
				name = cb.argv[0].text;
				cb.argv[0].text = NULL;
				cbuild_free(&cb);
				return parse_funcdef(p, name);
			}
		}
	}
	if (p->dbracket) {
		p->dbracket = 0;
		perr(p, "unterminated [[");
		goto fail;
	}
	if (cb.argc == 0 && cb.nassigns == 0 && cb.nredirs == 0) {
		switch (t->type) {
		case T_EOF:
			perr(p, "unexpected end of input");
			break;
		case T_NEWLINE:
			perr(p, "unexpected newline");
			break;
		default:
			perr(p, "syntax error near unexpected token");
			break;
		}
		goto fail;
	}
	return cbuild_emit(p, &cb, 0);
fail:
	cbuild_free(&cb);
	return -1;
}

static int
parse_command(struct parser *p)
{
	struct tok	*t;
	size_t		 first = p->st->out->ncmds;
	char		*kw, *name;
	int		 rv;

	if ((t = peek(p)) == NULL)
		return -1;
	if (nest_enter(p) == -1)
		return -1;
	if (t->type == T_LPAREN) {
		consume(p);
		if (peekc(p, 0) == '(')
			rv = parse_arith_cmd(p);
		else {
			rv = parse_list(p);
			if (rv == 0) {
				if ((t = peek(p)) == NULL)
					rv = -1;
				else if (t->type != T_RPAREN)
					rv = perr(p, "expected ')'");
				else
					consume(p);
			}
		}
	} else if (maybe_reserved(t) && is_compound_kw(t->w.text)) {
		kw = t->w.text;
		consume(p);
		rv = parse_compound(p, kw);
		free(kw);
	} else if (t->type == T_WORD && t->plain && t->w.len == 8 &&
	    strcmp(t->w.text, "function") == 0) {
		drop(p);
		if ((t = peek(p)) == NULL)
			rv = -1;
		else if (t->type != T_WORD)
			rv = perr(p, "function without a name");
		else {
			name = t->w.text;
			consume(p);
			if ((t = peek(p)) == NULL) {
				free(name);
				rv = -1;
			} else if (t->type == T_LPAREN) {
				consume(p);
				if ((t = peek(p)) == NULL ||
				    t->type != T_RPAREN) {
					free(name);
					rv = perr(p, "expected ')'");
				} else {
					consume(p);
					rv = parse_funcdef(p, name);
				}
			} else
				rv = parse_funcdef(p, name);
		}
		p->depth--;
		return rv;
	} else if (is_reserved_end(t)) {
		rv = perr(p, "unexpected '%s'", t->w.text);
		p->depth--;
		return rv;
	} else {
		rv = parse_simple(p);
		p->depth--;
		return rv;
	}
	if (rv == 0)
		rv = parse_trailing_redirs(p, first);
	p->depth--;
	return rv;
}

static int
parse_pipeline(struct parser *p)
{
	struct tok	*t;
	size_t		 first = p->st->out->ncmds, elem, i;
	int		 n = 0;

	if ((t = peek(p)) == NULL)
		return -1;
	if (tok_is(t, "!")) {
		drop(p);
	}
	for (;;) {
		elem = p->st->out->ncmds;
		if (parse_command(p) == -1)
			return -1;
		if (n++ > 0)
			for (i = elem; i < p->st->out->ncmds; i++)
				p->st->out->cmds[i].flags |= SH_C_PIPE_IN;
		if ((t = peek(p)) == NULL)
			return -1;
		if (t->type != T_PIPE)
			break;
		consume(p);
		if (skip_newlines(p) == -1)
			return -1;
	}
	if (n > 1)
		for (i = first; i < p->st->out->ncmds; i++)
			p->st->out->cmds[i].flags |= SH_C_PIPELINE;
	return 0;
}

static int
parse_and_or(struct parser *p)
{
	struct tok *t;

	for (;;) {
		if (parse_pipeline(p) == -1)
			return -1;
		if ((t = peek(p)) == NULL)
			return -1;
		if (t->type != T_AND && t->type != T_OR)
			return 0;
		consume(p);
		if (skip_newlines(p) == -1)
			return -1;
	}
}

/*
 * A list of and-or lists separated by ; & or newlines.  Returns at a token
 * that cannot start a command (EOF, ')', ';;', a closing reserved word),
 * leaving it peeked for the caller to check.
 */
static int
parse_list(struct parser *p)
{
	struct tok	*t;
	size_t		 first, i;

	for (;;) {
		if (skip_newlines(p) == -1 || (t = peek(p)) == NULL)
			return -1;
		if (t->type == T_EOF || t->type == T_RPAREN ||
		    t->type == T_DSEMI || is_reserved_end(t))
			return 0;
		first = p->st->out->ncmds;
		if (parse_and_or(p) == -1)
			return -1;
		if ((t = peek(p)) == NULL)
			return -1;
		if (t->type == T_SEMI || t->type == T_NEWLINE) {
			consume(p);
			continue;
		}
		if (t->type == T_AMP) {
			consume(p);
			for (i = first; i < p->st->out->ncmds; i++)
				p->st->out->cmds[i].flags |= SH_C_BACKGROUND;
			continue;
		}
		return 0;
	}
}

/* Move here-document bodies into the redirections that own them. */
static void
attach_bodies(struct sh_state *st)
{
	struct sh_cmd	*c;
	struct sh_redir	*r;
	size_t		 i, j;

	for (i = 0; i < st->out->ncmds; i++) {
		c = &st->out->cmds[i];
		for (j = 0; j < c->nredirs; j++) {
			r = &c->redirs[j];
			if (r->op != SH_R_HEREDOC || r->hd_id < 0 ||
			    (size_t)r->hd_id >= st->nbodies)
				continue;
			word_free(&r->target);
			r->target = st->bodies[r->hd_id];
			memset(&st->bodies[r->hd_id], 0,
			    sizeof(struct sh_word));
			if (r->target.text == NULL) {
				r->target.text = xstrdup("");
				r->target.len = 0;
			}
		}
	}
}

int
sh_parse(const char *src, size_t len, struct sh_list *out, char *err,
    size_t errlen)
{
	struct sh_state	 st;
	struct parser	 p;
	struct tok	*t;
	size_t		 i;
	int		 rv;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	st.out = out;
	st.err = err;
	st.errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	memset(&p, 0, sizeof(p));
	p.st = &st;
	p.s = src;
	p.len = len;
	if (len > SH_MAX_INPUT)
		rv = perr(&p, "command line too long (limit %u bytes)",
		    SH_MAX_INPUT);
	else if (memchr(src, '\0', len) != NULL)
		rv = perr(&p, "NUL byte in command line");
	else {
		rv = parse_list(&p);
		if (rv == 0) {
			if ((t = peek(&p)) == NULL)
				rv = -1;
			else if (t->type != T_EOF)
				rv = perr(&p, "syntax error near unexpected "
				    "%s", t->type == T_RPAREN ? "')'" :
				    t->type == T_DSEMI ? "';;'" :
				    "reserved word");
			else if (p.npend > 0)
				rv = perr(&p, "here-document '%s' has no end",
				    p.pend[0].delim);
		}
	}
	drop(&p);
	while (p.npend > 0)
		free(p.pend[--p.npend].delim);
	if (rv == 0)
		attach_bodies(&st);
	for (i = 0; i < st.nbodies; i++)
		word_free(&st.bodies[i]);
	free(st.bodies);
	if (rv == -1 || st.failed) {
		sh_list_free(out);
		return -1;
	}
	return 0;
}
