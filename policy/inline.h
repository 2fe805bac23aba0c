/* SPDX-License-Identifier: ISC */
/*
 * Programs given inline to an interpreter (R-C1): awk and sed
 * scripts, and the -c/-e one-liners of python, perl, node and ruby.  Such
 * text can run commands (awk's system(), sed's e command, perl's
 * backticks, python's os.system), so it is opaque unless it is one of
 * the common read-only forms, recognised here from the text alone.  Pure;
 * untrusted: every argument is the agent's text.  docs/POLICY.md lists
 * what passes.
 */
#ifndef AIRLOCK_INLINE_H
#define AIRLOCK_INLINE_H

enum inline_effect {
	INLINE_RO = 0,		/* reads, prints: the common forms */
	INLINE_WRITES,		/* writes a named file (print > "f", w f) */
	INLINE_RUNS,		/* can run commands, or not understood */
};

/* An awk program (the first operand, or -e's text). */
enum inline_effect pol_inline_awk(const char *prog);
/* A sed script (-e's text, or the first operand). */
enum inline_effect pol_inline_sed(const char *script);
/*
 * A one-liner of lang ("python", "perl", "node", "ruby"): INLINE_RO when
 * every name it uses is harmless (no import of a module that reaches the
 * system, no eval, open, system, backticks, ...), else INLINE_RUNS.
 */
enum inline_effect pol_inline_code(const char *lang, const char *code);

#endif
