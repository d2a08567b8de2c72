/* SPDX-License-Identifier: BSD-2-Clause */
/* rsecret.h -- where a Redis password comes from: a file that only its
 * owner can read, or an environment variable. */
#ifndef LR_RSECRET_H
#define LR_RSECRET_H

#include <stddef.h>

#include "core/err.h"

/* The environment variable name into buf, when it is set and not empty:
 * returns 1; 0 when it is not (buf untouched); -1 with e = EX_CONFIG when
 * it does not fit. */
int	rsecret_env(const char *name, char *buf, size_t n, struct lr_err *e);

/* The first line of the file at path into buf, as a password; what names
 * the setting in messages ("password_file"). Returns 0, or -1 with
 * e = EX_CONFIG when the file cannot be read, is open to other users (any
 * permission bit for "others"), or its line does not fit. */
int	rsecret_file(const char *path, const char *what, char *buf, size_t n,
	    struct lr_err *e);

#endif
