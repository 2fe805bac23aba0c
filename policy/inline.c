// SPDX-License-Identifier: ISC
/*
 * Inline programs (see policy/inline.h).  Each check reads the text as a
 * sequence of names, strings and punctuation, and errs towards "runs":
 * a read-only program that merely looks unusual is opaque (ask in chat),
 * never the other way round.
 *
 * Untrusted: all of it, the agent's text.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "policy/inline.h"

#define NAME_LEN	64

static int
in_set(const char *s, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

static int
name_start(int c)
{
	return isalpha(c) || c == '_';
}

/* ---- awk ---- */

enum inline_effect
pol_inline_awk(const char *p)
{
	char	name[NAME_LEN];
	size_t	n;
	int	writes = 0, in_print = 0, depth = 0;

	while (*p != '\0') {
		/* A statement ends; "print ... > f" is a write only there. */
		if (strchr(";{}\n", *p) != NULL)
			in_print = depth = 0;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		if (*p == '"') {			/* a string */
			for (p++; *p != '\0' && *p != '"'; p++)
				if (*p == '\\' && p[1] != '\0')
					p++;
			if (*p == '"')
				p++;
			continue;
		}
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '|') {
			/* "cmd" | getline, print | "cmd"; || is "or". */
			if (p[1] == '|') {
				p += 2;
				continue;
			}
			return INLINE_RUNS;
		}
		if (*p == '@')				/* gawk @load */
			return INLINE_RUNS;
		if (*p == '>') {
			/* print > "f" writes; elsewhere (and inside the
			 * parentheses of print (a > b)) it compares. */
			if (in_print && depth == 0)
				writes = 1;
			p++;
			continue;
		}
		if (name_start((unsigned char)*p)) {
			for (n = 0; isalnum((unsigned char)*p) || *p == '_';
			    p++)
				if (n < sizeof(name) - 1)
					name[n++] = *p;
			name[n] = '\0';
			if (strcmp(name, "system") == 0)
				return INLINE_RUNS;
			if (strcmp(name, "print") == 0 ||
			    strcmp(name, "printf") == 0)
				in_print = 1;
			continue;
		}
		p++;
	}
	return writes ? INLINE_WRITES : INLINE_RO;
}

/* ---- sed ---- */

/* Skip a delimited part (s/.../, y/.../, /regex/) starting after delim. */
static const char *
skip_delim(const char *p, char delim)
{
	for (; *p != '\0' && *p != delim; p++)
		if (*p == '\\' && p[1] != '\0')
			p++;
	return *p == delim ? p + 1 : p;
}

static const char *
skip_address(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p) || *p == '~')
				p++;
		} else if (*p == '$')
			p++;
		else if (*p == '/')
			p = skip_delim(p + 1, '/');
		else if (*p == '\\' && p[1] != '\0')
			p = skip_delim(p + 2, p[1]);
		else
			return p;
		while (*p == 'I' || *p == 'M')
			p++;
		if (*p == ',' || *p == '!')
			p++;
		while (*p == '!' || *p == ' ')
			p++;
	}
}

enum inline_effect
pol_inline_sed(const char *p)
{
	int	writes = 0;
	char	c, d;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
		    *p == '{' || *p == '}')
			p++;
		if (*p == '\0' || *p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		p = skip_address(p);
		c = *p;
		if (c == '\0')
			break;
		p++;
		switch (c) {
		case 's':
		case 'y':
			if ((d = *p) == '\0' || d == '\n' || d == '\\')
				return INLINE_RUNS;
			p = skip_delim(p + 1, d);
			p = skip_delim(p, d);
			if (c == 'y')
				break;
			/* flags: e runs the pattern space, w writes */
			for (; *p != '\0' && strchr(";}\n \t", *p) == NULL;
			    p++) {
				if (*p == 'e')
					return INLINE_RUNS;
				if (*p == 'w' || *p == 'W') {
					writes = 1;
					p += strcspn(p, "\n");
					break;
				}
			}
			break;
		case 'e':
			return INLINE_RUNS;
		case 'w':
		case 'W':
			writes = 1;
			/* FALLTHROUGH */
		case 'r':
		case 'R':
		case 'a':
		case 'i':
		case 'c':
			p += strcspn(p, "\n");		/* to the line's end */
			break;
		case ':':
		case 'b':
		case 't':
		case 'T':
			p += strcspn(p, ";\n");		/* a label */
			break;
		default:
			if (strchr("pdDnNgGhHxlLqQzF=P", c) == NULL)
				return INLINE_RUNS;	/* not understood */
			while (isdigit((unsigned char)*p))
				p++;
			break;
		}
	}
	return writes ? INLINE_WRITES : INLINE_RO;
}

/* ---- python, perl, node, ruby one-liners ---- */

/* Modules a python one-liner may import: none reaches the system. */
static const char *const py_modules[] = { "sys", "json", "math", "re",
    "string", "textwrap", "datetime", "time", "decimal", "fractions",
    "statistics", "itertools", "functools", "collections", "base64",
    "binascii", "hashlib", "uuid", "random", "struct", "html",
    "unicodedata", "keyword", "calendar", "operator", "pprint", "locale",
    "platform", NULL };

/* Names that reach the system, files or code, per language. */
static const char *const py_bad[] = {
	"os", "subprocess", "system", "popen", "exec", "eval", "compile",
	"open", "importlib", "getattr", "setattr", "delattr", "globals",
	"locals", "vars", "builtins", "breakpoint", "help", "modules",
	"pty", "socket", "shutil", "pathlib", "ctypes", "signal", "runpy",
	"pickle", "marshal", "spawn", "fork", "kill", "urllib", "http",
	"memoryview", "code", "codecs", "io", "tempfile", "webbrowser",
	"write_text", "write_bytes", "unlink", "remove", "rmdir", "mkdir",
	"rename", "replace", "chmod", "chown", "symlink", "link",
	"truncate", "settrace", "setprofile", "addaudithook", "call_tracing",
	"f_globals", "gi_frame", "tb_frame", "f_back", "type", "object",
	NULL
};
static const char *const perl_bad[] = {
	"system", "exec", "qx", "readpipe", "open", "sysopen", "syscall",
	"eval", "require", "use", "do", "glob", "unlink", "rename", "mkdir",
	"rmdir", "chmod", "chown", "chdir", "chroot", "link", "symlink",
	"truncate", "utime", "pipe", "socket", "fork", "kill", "dump",
	"dbmopen", "opendir", "mkfifo", "binmode", "select", "ioctl",
	"fcntl", "setpgrp", "CORE", NULL
};
static const char *const node_bad[] = {
	"require", "import", "child_process", "exec", "execSync",
	"execFile", "spawn", "spawnSync", "fork", "eval", "Function",
	"constructor", "binding", "mainModule", "dlopen", "fs", "writeFile",
	"writeFileSync", "appendFile", "appendFileSync", "module",
	"globalThis", "global", "Reflect", "Proxy", "WebAssembly", "Worker",
	"vm", "kill", "chdir", "setuid", "setgid", "Deno", "Bun", NULL
};
static const char *const ruby_bad[] = {
	"system", "exec", "spawn", "eval", "open", "IO", "File",
	"FileUtils", "Dir", "Kernel", "Process", "send", "public_send",
	"instance_eval", "class_eval", "module_eval", "instance_exec",
	"instance_variable_get", "const_get", "require", "require_relative",
	"load", "fork", "syscall", "trap", "at_exit", "ObjectSpace",
	"binding", "define_method", "method", "Open3", "PTY", "Socket",
	"Net", "URI", "ENV", "exit!", "abort", "Object", "BasicObject",
	NULL
};

/*
 * perl's s///e (and ee) evaluates the replacement: a delimiter followed
 * by modifier letters that include e.  Errs towards yes.
 */
static int
perl_eval_flag(const char *p)
{
	size_t	k;

	for (; (p = strpbrk(p, "/}|#!")) != NULL; p++) {
		k = strspn(p + 1, "msixpodualngcre");
		if (k > 0 && memchr(p + 1, 'e', k) != NULL &&
		    !isalnum((unsigned char)p[1 + k]))
			return 1;
	}
	return 0;
}

enum inline_effect
pol_inline_code(const char *lang, const char *p)
{
	char	name[NAME_LEN], prev[NAME_LEN];
	size_t	n;
	int	py = strcmp(lang, "python") == 0;
	int	perl = strcmp(lang, "perl") == 0;
	int	ruby = strcmp(lang, "ruby") == 0;
	int	state = 0;	/* python: 1 import list, 2 from's module,
				   3 from's names */
	int	just_name = 0;	/* the last thing read was a name */

	if (!py && !perl && !ruby && strcmp(lang, "node") != 0)
		return INLINE_RUNS;
	if (perl && perl_eval_flag(p))
		return INLINE_RUNS;
	prev[0] = '\0';
	while (*p != '\0') {
		/* Backticks and %x() run commands in perl and ruby. */
		if ((perl || ruby) && *p == '`')
			return INLINE_RUNS;
		if (ruby && p[0] == '%' && (p[1] == 'x' || p[1] == 'X'))
			return INLINE_RUNS;
		if (py && (*p == '\'' || *p == '"')) {
			char	q = *p;

			/* An f-string evaluates its braces. */
			if (just_name && strlen(prev) <= 2 &&
			    strpbrk(prev, "fF") != NULL)
				return INLINE_RUNS;
			for (p++; *p != '\0' && *p != q && *p != '\n'; p++)
				if (*p == '\\' && p[1] != '\0')
					p++;
			if (*p == q)
				p++;
			prev[0] = '\0';
			just_name = 0;
			continue;
		}
		if (name_start((unsigned char)*p)) {
			for (n = 0; isalnum((unsigned char)*p) || *p == '_';
			    p++)
				if (n < sizeof(name) - 1)
					name[n++] = *p;
			name[n] = '\0';
			if (name[0] == '_' || in_set(name, py ? py_bad :
			    perl ? perl_bad : ruby ? ruby_bad : node_bad))
				return INLINE_RUNS;
			if (py) {
				if (strcmp(name, "import") == 0)
					state = state == 2 ? 3 : 1;
				else if (strcmp(name, "from") == 0)
					state = 2;
				else if ((state == 1 || state == 2) &&
				    strcmp(name, "as") != 0 &&
				    strcmp(prev, "as") != 0 &&
				    !in_set(name, py_modules))
					return INLINE_RUNS;
			}
			memcpy(prev, name, n + 1);
			just_name = 1;
			continue;
		}
		just_name = 0;
		if (py && (*p == ';' || *p == '\n'))
			state = 0;
		if (py && state == 2 && *p == '.')
			return INLINE_RUNS;	/* from a.b import */
		prev[0] = *p == ' ' ? prev[0] : '\0';
		p++;
	}
	return INLINE_RO;
}
