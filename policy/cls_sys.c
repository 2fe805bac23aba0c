// SPDX-License-Identifier: ISC
/*
 * The system family of the command classifier (cls.h): privilege
 * escalation, destruction of file systems or of the running system,
 * leaving the sandbox's namespaces, services, and containers that share
 * the host.  Most of these are hard denies in every mode.
 */
#include <string.h>

#include "policy/classify.h"
#include "policy/cls.h"

int
cls_priv(struct cls_call *c)
{
	PRIV(c->a, "%s changes privileges", c->name);
	return CLS_DONE;
}

int
cls_destroy(struct cls_call *c)
{
	if (version_only(c->w, c->n)) {
		set_ro(c->a, "%s %s", c->name, c->w[1].text);
		return CLS_DONE;
	}
	DESTROY(c->a, "%s can destroy a file system or stop the system",
	    c->name);
	return CLS_DONE;
}

int
cls_escape(struct cls_call *c)
{
	ESCAPE(c->a, "%s can leave the sandbox's namespaces or change the "
	    "kernel", c->name);
	return CLS_DONE;
}

/* sysctl reads unless it writes (-w, -p, or a key=value). */
int
cls_sysctl(struct cls_call *c)
{
	size_t	i;

	if (!has_opt(c->w, c->n, 'w', "write") &&
	    !has_opt(c->w, c->n, 'p', "load")) {
		for (i = 1; i < c->n; i++)
			if (strchr(c->w[i].text, '=') != NULL)
				break;
		if (i == c->n) {
			set_ro(c->a, "sysctl reads");
			return CLS_DONE;
		}
	}
	return cls_escape(c);
}

int
cls_mount(struct cls_call *c)
{
	if (c->n == 1) {
		set_ro(c->a, "mount lists mounts");
		return CLS_DONE;
	}
	return cls_escape(c);
}

int
cls_init(struct cls_call *c)
{
	if (c->n == 2 && (weq(&c->w[1], "0") || weq(&c->w[1], "6"))) {
		DESTROY(c->a, "init %s stops the system", c->w[1].text);
		return CLS_DONE;
	}
	return cls_unknown(c);
}

int
cls_systemctl(struct cls_call *c)
{
	static const char *const pw[] = { "poweroff", "reboot", "halt",
	    "kexec", "suspend", "hibernate", "isolate", "emergency",
	    "rescue", NULL };
	size_t	i;

	for (i = 1; i < c->n; i++)
		if (lit(&c->w[i]) && in_list(c->w[i].text, pw)) {
			DESTROY(c->a, "systemctl %s stops the system",
			    c->w[i].text);
			return CLS_DONE;
		}
	set_mut(c->a, "systemctl changes services");
	return CLS_DONE;
}

int
cls_ip(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n; i++)
		if (weq(&c->w[i], "netns")) {
			ESCAPE(c->a, "ip netns enters another network "
			    "namespace");
			return CLS_DONE;
		}
	set_mut(c->a, "ip");
	return CLS_DONE;
}

/* Is s one of the literal words? */
static int
has_word(const struct sh_word *w, size_t n, const char *s)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (weq(&w[i], s))
			return 1;
	return 0;
}

/* docker, podman, nerdctl: anything that shares the host is an escape. */
static void
an_container(struct an *a, const struct sh_word *w, size_t n,
    const char *name)
{
	static const char *const hostns[] = { "--pid=host", "--net=host",
	    "--network=host", "--ipc=host", "--uts=host", "--userns=host",
	    "--cgroupns=host", NULL };
	const char	*sub = first_operand(w, n, NULL), *t, *v;
	size_t		 i;

	if (sub == NULL) {
		set_mut(a, "%s", name);
		return;
	}
	if (strcmp(sub, "push") == 0) {
		set_ask(a, POL_F_REMOTE, "ask:publish", "%s push publishes an "
		    "image", name);
		return;
	}
	if (strcmp(sub, "ps") == 0 || strcmp(sub, "images") == 0 ||
	    strcmp(sub, "inspect") == 0 || strcmp(sub, "logs") == 0 ||
	    strcmp(sub, "version") == 0 || strcmp(sub, "info") == 0) {
		set_ro(a, "%s %s", name, sub);
		return;
	}
	for (i = 1; i < n; i++) {
		if (!lit(&w[i]))
			continue;
		t = w[i].text;
		v = i + 1 < n ? w[i + 1].text : "";
		if (strcmp(t, "--privileged") == 0 || in_list(t, hostns) ||
		    ((strcmp(t, "--pid") == 0 || strcmp(t, "--net") == 0 ||
		    strcmp(t, "--network") == 0 || strcmp(t, "--ipc") == 0 ||
		    strcmp(t, "--userns") == 0) && strcmp(v, "host") == 0) ||
		    starts(t, "--cap-add") || starts(t, "--device") ||
		    (starts(t, "--security-opt") && (strstr(t, "unconfined") ||
		    strstr(v, "unconfined")))) {
			ESCAPE(a, "%s %s %.40s shares the host", name, sub, t);
			return;
		}
		if (strcmp(t, "-v") == 0 || strcmp(t, "--volume") == 0 ||
		    strcmp(t, "--mount") == 0)
			t = v;
		else if (starts(t, "--volume=") || starts(t, "--mount="))
			t = strchr(t, '=') + 1;
		else
			continue;
		if (starts(t, "/:") || strcmp(t, "/") == 0 ||
		    strstr(t, "docker.sock") != NULL ||
		    strstr(t, "source=/,") != NULL ||
		    strstr(t, "src=/,") != NULL ||
		    (strstr(t, "source=/") != NULL &&
		    strchr(strstr(t, "source=/") + 8, ',') == NULL &&
		    strstr(t, "source=/")[8] == '\0')) {
			ESCAPE(a, "%s mounts the host root or its socket",
			    name);
			return;
		}
	}
	/*
	 * run and exec run a command in a container: where it starts
	 * among the options is not modelled here, so it is opaque.
	 */
	if (strcmp(sub, "run") == 0 || strcmp(sub, "exec") == 0 ||
	    ((strcmp(sub, "container") == 0 || strcmp(sub, "compose") == 0) &&
	    (has_word(w, n, "run") || has_word(w, n, "exec"))))
		set_opaque(a, "%s %s runs a command in a container", name,
		    sub);
	set_mut(a, "%s %s", name, sub);
}

int
cls_container(struct cls_call *c)
{
	an_container(c->a, c->w, c->n, c->name);
	return CLS_DONE;
}
