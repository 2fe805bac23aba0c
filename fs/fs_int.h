/* SPDX-License-Identifier: ISC */
/*
 * airlock-fs's own interfaces: the request's context (roots, rules), the
 * resolver (resolve.c), the tree walk with .gitignore (walk.c) and the
 * operations (ops.c).
 */
#ifndef AIRLOCK_FS_INT_H
#define AIRLOCK_FS_INT_H

#include <sys/stat.h>

#include <limits.h>
#include <stddef.h>

struct json;
struct namerule_set;
struct jgen;

struct fs_ctx {
	char			**roots;	/* as airlockd names them */
	char			**canon;	/* as the kernel does */
	int			 *rootfd;
	size_t			  nroots;
	struct namerule_set	 *rules;	/* the plan's write rules */
	/* The refusal, when an operation fails. */
	const char		 *rule;
	char			  msg[1024];
	char			  path[PATH_MAX];
	long long		  matches;	/* fs.edit's count, or -1 */
};

/* A resolved path: its parent directory held open and its final
 * component, which is not a symlink (or does not exist). */
struct fs_res {
	int		 dfd;
	char		 name[NAME_MAX + 1];
	int		 root;
	int		 exists;
	struct stat	 st;
};

int	fs_refuse(struct fs_ctx *, const char *rule, const char *path,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int	fs_errno_refuse(struct fs_ctx *, int e, const char *path);

/* untrusted: path.  0, or -1 with the refusal set. */
int	fs_resolve(struct fs_ctx *, const char *path, int mkdirs,
	    struct fs_res *);
int	fs_res_path(const struct fs_res *, char *buf, size_t len);
void	fs_res_close(struct fs_res *);
void	fs_resolve_no_openat2(void);
int	fs_walk_dir(int root, const char *rel, int mkdirs);

/* Shared by the operations (ops.c). */
#define FS_OUT_MAX	(2U << 20)	/* text or base64 in one answer */
const char *fs_str(const struct json *, const char *key);
void	fs_shown(const struct fs_ctx *, const char *canon, char *out,
	    size_t len);
int	fs_utf8_valid(const char *, size_t);
void	fs_jstr_lossy(struct jgen *, const char *, size_t);

/* The operations; each adds its result's members to the answer. */
int	fs_op_read(struct fs_ctx *, const struct json *, struct jgen *);
int	fs_op_write(struct fs_ctx *, const struct json *, struct jgen *);
int	fs_op_edit(struct fs_ctx *, const struct json *, struct jgen *);
int	fs_op_patch(struct fs_ctx *, const struct json *, struct jgen *);
int	fs_op_search(struct fs_ctx *, const struct json *, struct jgen *);
int	fs_op_find(struct fs_ctx *, const struct json *, struct jgen *);

#endif
