/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel_url.h -- the parts of a redis+sentinel:// URL that are its own:
 * the list of sentinels and the master's name. rurl.c reads the rest
 * (the scheme, [user[:password]@]) as it does for every Redis URL. Pure:
 * libc only. */
#ifndef LR_SENTINEL_URL_H
#define LR_SENTINEL_URL_H

#include "core/err.h"
#include "core/url.h"

#define SENTINEL_URL_MAX	8	/* sentinels in one URL */
#define SENTINEL_URL_PORT	26379	/* a sentinel's port when none is given */

/* host[:port][,host[:port]...], all of [s, end), into list[] (room for
 * SENTINEL_URL_MAX). Returns how many, or -1 with e = EX_USAGE. */
int	sentinel_url_list(const char *s, const char *end, struct lr_hostport *list,
	    struct lr_err *e);

/* MASTER[/db] at s (what follows the list's '/'): the name, as
 * sentinel.conf takes it (no spaces, slashes or control characters), into
 * master[n], and the database into *db when there is one. Returns 0, or
 * -1 with e = EX_USAGE. */
int	sentinel_url_master(const char *s, char *master, size_t n, int *db,
	    struct lr_err *e);

#endif
