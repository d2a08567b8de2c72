/* SPDX-License-Identifier: BSD-2-Clause */
/* file.h -- open a file lockrun reads (the config, a password, a
 * certificate): a regular file only, opened without blocking; and read a
 * password from such a file or from the environment. */
#ifndef LR_FILE_H
#define LR_FILE_H

#include <stdio.h>

#include "core/err.h"

/* Open path for reading. NULL with errno set when it cannot be opened, or
 * with errno 0 and *what naming the kind ("a FIFO", "a directory", ...)
 * when it is not a regular file: a FIFO would hold open(2) until a writer
 * came, for ever, and a device or socket is never a config. */
FILE	*file_open_regular(const char *path, const char **what);

/* A message for a failed file_open_regular(): strerror(errno), or "not a
 * regular file (a FIFO)". Into buf[n]; returns buf. */
const char *file_why(const char *what, char *buf, size_t n);

/* The first line of the file at path into buf[n], as a password; what
 * names the setting in messages ("password_file"). Returns 0, or -1 with
 * e = EX_CONFIG when the file cannot be read, is open to other users (any
 * permission bit for "others"), or its line does not fit. */
int	file_read_secret(const char *path, const char *what, char *buf, size_t n,
	    struct lr_err *e);

/* The environment variable name into buf[n], when it is set and not
 * empty: returns 1; 0 when it is not (buf untouched); -1 with
 * e = EX_CONFIG when it does not fit. */
int	file_env_secret(const char *name, char *buf, size_t n, struct lr_err *e);

#endif
