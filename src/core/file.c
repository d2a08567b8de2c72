/* SPDX-License-Identifier: BSD-2-Clause */
/* file.c -- open a file lockrun reads: regular files only (file.h). */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
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
