/* SPDX-License-Identifier: ISC */
/*
 * Linked only into sanitizer builds (make SANITIZE=...) of the daemons
 * whose seccomp filter outlives their exit path.  LeakSanitizer's check at
 * exit stops the process's threads with ptrace and reads /proc, both of
 * which the filter refuses: the daemon would die of SIGSYS on a clean
 * shutdown.  AddressSanitizer and UBSan stay on; only the exit-time leak
 * check is off, for these programs alone.
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
