/* SPDX-License-Identifier: BSD-2-Clause */
/* file.c -- open a file lockrun reads: regular files only (file.h). */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"

static const char *
kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ?
	    "a socket" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ?
	    "a block device" : "not a regular file";
}

FILE *
file_open_regular(const char *path, const char **what)
{
	struct stat st;
	FILE *fp;
	int fd;

	*what = NULL;
	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer,
	 * and is refused below; a regular file ignores the flag */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*what = fstat(fd, &st) == 0 ? kind_of(st.st_mode) : "not a regular file";
		close(fd);
		errno = 0;
		return NULL;
	}
	if ((fp = fdopen(fd, "r")) == NULL)
		close(fd);
	return fp;
}

const char *
file_why(const char *what, char *buf, size_t n)
{
	if (what)
		snprintf(buf, n, "not a regular file (%s)", what);
	else
		snprintf(buf, n, "%s", strerror(errno));
	return buf;
}

/* A password file readable by others is a leak already made: refuse it,
 * so that it is fixed, rather than use it. */
int
file_read_secret(const char *path, const char *what, char *buf, size_t n,
    struct lr_err *e)
{
	const char *kind;
	char why[64];
	FILE *fp = file_open_regular(path, &kind);
	struct stat st;
	int failed;

	if (fp == NULL)
		return lr_errf(e, EX_CONFIG, "%s %s: %s", what, path,
		    file_why(kind, why, sizeof(why)));
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & S_IRWXO) != 0) {
		fclose(fp);
		return lr_errf(e, EX_CONFIG, "%s %s is open to other users "
		    "(mode %04o); chmod o-rwx it", what, path, (unsigned)(st.st_mode & 07777));
	}
	if (fgets(buf, (int)n, fp) == NULL)
		buf[0] = '\0';
	failed = ferror(fp);
	fclose(fp);
	if (failed)
		return lr_errf(e, EX_CONFIG, "%s %s: cannot be read", what, path);
	if (strlen(buf) == n - 1 && buf[n - 2] != '\n')
		return lr_errf(e, EX_CONFIG, "%s %s: the password is longer "
		    "than %zu bytes", what, path, n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int
file_env_secret(const char *name, char *buf, size_t n, struct lr_err *e)
{
	const char *env = getenv(name);

	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= n)
		return lr_errf(e, EX_CONFIG, "%s is longer than %zu bytes", name, n - 1);
	snprintf(buf, n, "%s", env);
	return 1;
}
