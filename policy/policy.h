/* SPDX-License-Identifier: ISC */
/*
 * Types shared by every policy module: verdicts and effect classes.
 * policy/ is pure: no I/O, no global state, nothing allocated that is not
 * freed by a matching _free().  Every function is unit-tested.
 */
#ifndef AIRLOCK_POLICY_H
#define AIRLOCK_POLICY_H

/* Verdicts, ordered by strictness: the strictest of several wins. */
enum pol_verdict {
	POL_ALLOW = 0,
	POL_ASK = 1,
	POL_DENY = 2,
};

/* Effect classes a command or tool may declare (SPEC R-C2, R-C4). */
enum pol_class {
	POL_CLASS_CREATE_COMMIT = 0,
	POL_CLASS_OPEN_PULL_REQUEST,
	POL_CLASS_PUBLISH_REVIEW_OR_MERGE,
	POL_CLASS_WRITE_EXTERNAL_TRACKER,
	POL_CLASS_INSTALL_PACKAGE,
	POL_CLASS_NETWORK_ACCESS,
	POL_CLASS_MAX
};

/* Session modes (SPEC §3, R-S5, R-C3). */
enum pol_mode {
	POL_MODE_CHAT = 0,
	POL_MODE_PLAN,
	POL_MODE_REVIEW,
	POL_MODE_ORCHESTRATE,
};

const char	*pol_verdict_name(enum pol_verdict);
int		 pol_verdict_parse(const char *, enum pol_verdict *);
const char	*pol_class_name(enum pol_class);
int		 pol_class_parse(const char *, enum pol_class *);
const char	*pol_mode_name(enum pol_mode);
int		 pol_mode_parse(const char *, enum pol_mode *);
/* Modes other than chat are read-only. */
int		 pol_mode_readonly(enum pol_mode);

#endif
