/* SPDX-License-Identifier: BSD-2-Clause */
/* file.h -- open a file lockrun reads (the config, a password, a
 * certificate): a regular file only, opened without blocking. */
#ifndef LR_FILE_H
#define LR_FILE_H

#include <stdio.h>

/* Open path for reading. NULL with errno set when it cannot be opened, or
 * with errno 0 and *what naming the kind ("a FIFO", "a directory", ...)
 * when it is not a regular file: a FIFO would hold open(2) until a writer
 * came, for ever, and a device or socket is never a config. */
FILE	*file_open_regular(const char *path, const char **what);

/* A message for a failed file_open_regular(): strerror(errno), or "not a
 * regular file (a FIFO)". Into buf[n]; returns buf. */
const char *file_why(const char *what, char *buf, size_t n);

#endif
