// SPDX-License-Identifier: ISC
/*
 * The audit log (R-C4): every decision airlockd makes about an
 * action of a sandbox (command verdicts, approvals and their answers,
 * push ref verdicts, sandbox overrides, refused repositories) is one JSON
 * line appended to $XDG_STATE_HOME/airlock/audit.jsonl, mode 0600.  That
 * directory is airlockd's own state and is masked in every sandbox
 * (sv_plan.c), so nothing inside can read or forge a line.  Appends are
 * O_APPEND writes of one whole line, so concurrent airlockds of the user
 * interleave lines, never bytes of a line.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sess.h"

static int
audit_open(void)
{
	struct stat	 st;
	char		*dir, *p;
	int		 dfd, fd = -1;

	if ((dir = airlock_state_dir()) == NULL)
		return -1;
	/* mkdir -p, the directories airlock makes private. */
	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		(void)mkdir(dir, 0700);
		*p = '/';
	}
	(void)mkdir(dir, 0700);
	/*
	 * Planted beforehand (by a sandbox that once could write there,
	 * say): the directory a symlink elsewhere, or someone else's, or
	 * writable by others; the file a link or a FIFO (an open for
	 * writing would block airlockd until a reader came).  Refused.
	 */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		log_warn("audit log: %s", dir);
		free(dir);
		return -1;
	}
	if (fstat(dfd, &st) == -1 || st.st_uid != getuid() ||
	    (st.st_mode & 022) != 0) {
		log_warnx("audit log: %s: not a directory of ours, closed to "
		    "others", dir);
		goto out;
	}
	fd = openat(dfd, "audit.jsonl", O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd == -1)
		log_warn("audit log %s/audit.jsonl", dir);
	else if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || st.st_nlink != 1) {
		log_warnx("audit log %s/audit.jsonl: not a plain file of ours",
		    dir);
		close(fd);
		fd = -1;
	} else
		(void)fchmod(fd, 0600);
out:
	close(dfd);
	free(dir);
	return fd;
}

void
sv_audit(const char *sid, const char *action, const char *target,
    const char *verdict, const char *rule, const struct sv_client *approver)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	char		 ts[40], *line;
	size_t		 len;
	int		 fd;

	now_rfc3339(ts, sizeof(ts));
	jgen_obj_open(j);
	jgen_kstr(j, "time", ts);
	jgen_kstr(j, "sessionId", sid);
	jgen_kstr(j, "action", action);
	jgen_kstr(j, "target", target);
	jgen_kstr(j, "verdict", verdict);
	jgen_kstr(j, "rule", rule != NULL && rule[0] != '\0' ? rule : NULL);
	jgen_key(j, "approvedBy");
	if (approver != NULL) {
		jgen_obj_open(j);
		jgen_kint(j, "connection", sv_client_id(approver));
		jgen_kint(j, "uid", sv_client_uid(approver));
		jgen_obj_close(j);
	} else
		jgen_null(j);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	line = xmalloc(len + 1);
	memcpy(line, buf, len);
	line[len] = '\n';
	if ((fd = audit_open()) != -1) {
		if (write(fd, line, len + 1) != (ssize_t)(len + 1))
			log_warn("audit log: write");
		close(fd);
	}
	free(line);
	jgen_free(j);
}
