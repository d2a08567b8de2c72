/* SPDX-License-Identifier: BSD-2-Clause */
/* rsecret.c -- read a Redis password from a file or the environment. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "backend/redis/rsecret.h"

int
rsecret_file(const char *path, const char *what, char *buf, size_t n, struct lr_err *e)
{
	const char *kind;
	char why[64];
	FILE *fp = file_open_regular(path, &kind);
	int err;

	struct stat st;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "%s %s: %s", what, path,
		    file_why(kind, why, sizeof(why)));
	/* a password others can read is no secret: refuse, not warn */
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & S_IRWXO) != 0) {
		fclose(fp);
		return lr_errf(e, EX_CONFIG, "%s %s is open to other users "
		    "(mode %04o); chmod o-rwx it", what, path, (unsigned)(st.st_mode & 07777));
	}
	if (fgets(buf, (int)n, fp) == NULL)
		buf[0] = '\0';
	err = ferror(fp);
	fclose(fp);
	if (err)
		return lr_errf(e, EX_CONFIG, "%s %s: cannot be read", what, path);
	if (strlen(buf) == n - 1 && buf[n - 2] != '\n')
		return lr_errf(e, EX_CONFIG, "%s %s: the password is longer "
		    "than %zu bytes", what, path, n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int
rsecret_env(const char *name, char *buf, size_t n, struct lr_err *e)
{
	const char *env = getenv(name);

	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= n)
		return lr_errf(e, EX_CONFIG, "%s is longer than %zu bytes", name, n - 1);
	snprintf(buf, n, "%s", env);
	return 1;
}
