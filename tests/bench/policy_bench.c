// SPDX-License-Identifier: ISC
/*
 * Command lines classified per second on one core (issue 5, target
 * >= 200k/s for typical 40-200 byte commands).  Runs pol_check() over a
 * fixed mix of agent-style command lines for a few seconds and prints
 * one line: "policy_check: N lines/s (mean M bytes, K lines)".  Time is
 * this thread's CPU time, so other load on the machine does not skew it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/classify.h"

static const char *const lines[] = {
	"git status && git diff --stat HEAD~1 -- src/ | tail -n 20",
	"cd /home/dev/src/app && npm test -- --watch=false 2>&1 | tail -50",
	"grep -rn \"TODO\\|FIXME\" --include='*.c' --include='*.h' src/ | "
	    "head -40",
	"find . -name '*.py' -not -path './.venv/*' -exec wc -l {} + | "
	    "sort -n | tail -5",
	"git add -A && git commit -m \"Fix the parser's handling of "
	    "here-documents\" && git log --oneline -3",
	"python3 -m pytest tests/unit -x -q --tb=short 2>&1 | tail -30",
	"ls -la build/ && cat build/config.log | grep -i error || true",
	"for f in src/*.c; do echo \"== $f\"; grep -c malloc \"$f\"; done",
	"curl -sS -H 'Accept: application/json' https://api.example.com/"
	    "v1/items?limit=10 | jq '.items[].id'",
	"sed -n '120,180p' src/policy/classify.c",
	"git -C ../other-repo log --since='2 weeks ago' --author=dev "
	    "--pretty=format:'%h %s' | head",
	"cat <<'EOF' > /tmp/notes.md\n# Notes\n- item one\n- item two\nEOF",
	"make -j4 CI=1 2>&1 | grep -E 'error|warning' ; echo exit=$?",
	"bash -c 'cd build && cmake .. -DCMAKE_BUILD_TYPE=Release && make'",
	"rg -n --hidden -g '!.git' 'pol_check\\(' . | awk -F: '{print $1}' "
	    "| sort -u",
	"if [ -f package.json ]; then npm ci && npm run build; else echo "
	    "'no package.json'; fi",
};

int
main(int argc, char **argv)
{
	struct pol_result	*r;
	struct timespec		 t0, t1;
	double			 el, secs = argc > 1 ? atof(argv[1]) :
				    3.0;
	size_t			 n = sizeof(lines) / sizeof(lines[0]), i;
	size_t			 bytes = 0, lens[64];
	unsigned long long	 count = 0;
	unsigned		 sink = 0;

	for (i = 0; i < n; i++) {
		lens[i] = strlen(lines[i]);
		bytes += lens[i];
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < n; i++) {
			r = pol_check(lines[i], lens[i], POL_MODE_CHAT, NULL);
			sink += r->verdict;
			pol_result_free(r);
		}
		count += n;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		el = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	} while (el < secs);
	printf("policy_check: %.0f lines/s (mean %zu bytes, %zu lines, "
	    "%llu checks, verdict sum %u)\n", (double)count / el, bytes / n,
	    n, count, sink);
	return 0;
}
