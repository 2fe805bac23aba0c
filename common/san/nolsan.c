/* SPDX-License-Identifier: ISC */
/*
 * Linked only into sanitizer builds (make SANITIZE=...) of the programs
 * whose seccomp allowlist outlives their exit path: proxyd, gatewayd,
 * airlock-clone.  LeakSanitizer's check at exit stops the process's
 * threads with clone and ptrace and reads /proc, which the filter kills
 * and a non-dumpable process refuses: the program would die of SIGSYS on
 * a clean exit.  AddressSanitizer and UBSan stay on; only the exit-time
 * leak check is off, for these programs alone (gatewayd's leaks are
 * measured by push_flow.sh's RSS test instead).
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
