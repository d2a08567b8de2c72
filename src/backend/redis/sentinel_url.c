/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel_url.c -- the sentinels and the master of a redis+sentinel://
 * URL (sentinel_url.h); pure, libc only. Each host:port is read by
 * url_hostport(), as in every other URL, so they are spelled the same. */
#include <string.h>

#include "backend/redis/sentinel_url.h"

#define EXPECTED	"expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]" \
			"/MASTER[/db]"

/* Sentinel i (from 0) at [s, s+len) into *hp. */
static int
one_sentinel(const char *s, size_t len, int i, struct lr_hostport *hp, struct lr_err *e)
{
	struct lr_err why;

	if (len == 0)
		return lr_errf(e, EX_USAGE, "empty sentinel address in the list");
	hp->port = SENTINEL_URL_PORT;
	if (url_hostport(s, s + len, hp->host, sizeof(hp->host), &hp->port, &why) != 0)
		return lr_errf(e, EX_USAGE, "sentinel %d: %s", i + 1, why.msg);
	if (hp->host[0] == '\0')
		return lr_errf(e, EX_USAGE, "sentinel %d: no host (expected "
		    "redis://host[:port][/db])", i + 1);
	return 0;
}

int
sentinel_url_list(const char *s, const char *end, struct lr_hostport *list,
    struct lr_err *e)
{
	int n = 0;

	for (;;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *stop = comma ? comma : end;

		if (n == SENTINEL_URL_MAX)
			return lr_errf(e, EX_USAGE, "more than %d sentinels",
			    SENTINEL_URL_MAX);
		if (one_sentinel(s, (size_t)(stop - s), n, &list[n], e) != 0)
			return -1;
		n++;
		if (comma == NULL)
			return n;
		s = comma + 1;
	}
}

int
sentinel_url_master(const char *s, char *master, size_t n, int *db, struct lr_err *e)
{
	size_t len = strcspn(s, "/");

	if (len == 0)
		return lr_errf(e, EX_USAGE, "no master name (" EXPECTED ")");
	if (len >= n)
		return lr_errf(e, EX_USAGE, "master name is longer than %zu bytes",
		    n - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return lr_errf(e, EX_USAGE, "master name has a space or a "
			    "control character");
	memcpy(master, s, len);
	master[len] = '\0';
	if (s[len] == '\0' || s[len + 1] == '\0')	/* "m" or "m/": database 0 */
		return 0;
	if (url_decimal(s + len + 1, strlen(s + len + 1), 0, 1000000, db) != 0)
		return lr_errf(e, EX_USAGE, "database after the master name must "
		    "be a number");
	return 0;
}
