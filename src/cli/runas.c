/* SPDX-License-Identifier: BSD-2-Clause */
/* runas.c -- a task's user: and group: (runas.h). The config that names
 * them was read as root, so it passed files_trusted() (config/files.c):
 * owned by root, writable by no one else, nor any folder above it -- as
 * cron(8) requires of a crontab that names users. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/runas.h"

/* "NAME=value" first in *env. Returns 0, or -1 when out of memory. */
static int
env_prepend(char ***env, const char *name, const char *value)
{
	size_t n = strv_len(*env);
	char **v = calloc(n + 2, sizeof(*v)), *kv = malloc(strlen(name) + strlen(value) + 2);

	if (v == NULL || kv == NULL) {
		free(v);
		free(kv);
		return -1;
	}
	sprintf(kv, "%s=%s", name, value);
	v[0] = kv;
	for (size_t i = 0; i < n; i++)
		v[i + 1] = (*env)[i];
	free(*env);
	*env = v;
	return 0;
}

int
run_as_prepare(struct lr_run *r, struct lr_err *e)
{
	struct lr_ctx *x = r->x;
	const struct lr_task *t = &x->t;
	struct lr_creds *c = &r->creds;
	const struct passwd *pw;
	const struct group *gr;

	memset(c, 0, sizeof(*c));
	if (t->user == NULL)
		return 0;
	if (geteuid() != 0)
		return lr_errf(e, EX_CONFIG, "user %s: lockrun runs as uid %u, not root: it "
		    "cannot run a command as another user", t->user, (unsigned)geteuid());
	errno = 0;
	if ((pw = getpwnam(t->user)) == NULL) {	/* errno 0: no such entry */
		int err = errno;

		if (err == ENOENT || err == ESRCH)	/* no such entry, too */
			err = 0;
		lr_errf(e, EX_CONFIG, "user %s: %s", t->user, err ? strerror(err) :
		    "no such user on this host");
		return err ? -1 : 1;
	}
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	snprintf(c->name, sizeof(c->name), "%s", pw->pw_name);
	if (t->group) {
		errno = 0;
		if ((gr = getgrnam(t->group)) == NULL) {
			int err = errno;

			if (err == ENOENT || err == ESRCH)
				err = 0;
			lr_errf(e, EX_CONFIG, "group %s: %s", t->group, err ?
			    strerror(err) : "no such group on this host");
			return err ? -1 : 1;
		}
		c->gid = gr->gr_gid;
	}
	c->ngroups = LR_GROUPS_MAX;
	if (getgrouplist(pw->pw_name, c->gid, c->groups, &c->ngroups) < 0)
		return lr_errf(e, EX_CONFIG, "user %s: in more than %d groups", t->user,
		    LR_GROUPS_MAX);
	/* before the task's env, which is applied after them and wins */
	if (env_prepend(&x->t.env, "SHELL", pw->pw_shell && *pw->pw_shell ?
	    pw->pw_shell : "/bin/sh") != 0 ||
	    env_prepend(&x->t.env, "LOGNAME", pw->pw_name) != 0 ||
	    env_prepend(&x->t.env, "USER", pw->pw_name) != 0 ||
	    env_prepend(&x->t.env, "HOME", pw->pw_dir) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (c->uid == 0)	/* root: the credentials stay as they are */
		memset(c, 0, sizeof(*c));
	return 0;
}
