/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel_url.c -- parse redis+sentinel:// URLs; pure, libc only. The
 * user, password and each host:port are read by rurl_parse() itself, as
 * parts of a redis:// URL, so every URL spells them the same way. */
#include <stdio.h>
#include <string.h>

#include "backend/redis/rurl.h"

#define SENTINEL_PORT	26379
#define EXPECTED	"expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]" \
			"/MASTER[/db]"

/* One "host[:port]" of the list into u->sentinel[i]. */
static int
parse_sentinel(const char *s, size_t len, struct lr_url *u, int i, struct lr_err *e)
{
	char url[300];
	const char *close;
	struct lr_url one;
	int has_port;

	if (len == 0)
		return lr_errf(e, EX_USAGE, "redis URL: empty sentinel address in the list");
	if (len + 8 >= sizeof(url))
		return lr_errf(e, EX_USAGE, "redis URL: sentinel host name is too long");
	snprintf(url, sizeof(url), "redis://%.*s", (int)len, s);
	if (rurl_parse(url, &one, e) != 0) {
		char why[sizeof(e->msg)];
		if (e == NULL)
			return -1;
		snprintf(why, sizeof(why), "%s", e->msg + (strncmp(e->msg, "redis URL: ",
		    11) == 0 ? 11 : 0));
		return lr_errf(e, EX_USAGE, "redis URL: sentinel %d: %s", i + 1, why);
	}
	close = memchr(s, ']', len);
	has_port = s[0] == '[' ? close && close + 1 < s + len : memchr(s, ':', len) != NULL;
	snprintf(u->sentinel[i].host, sizeof(u->sentinel[i].host), "%s", one.host);
	u->sentinel[i].port = has_port ? one.port : SENTINEL_PORT;
	return 0;
}

/* [user[:password]] for the master, read as redis://USERINFO@x reads it. */
static int
parse_auth(const char *s, size_t len, struct lr_url *u, struct lr_err *e)
{
	char url[512];
	struct lr_url one;
	int rc;

	if (len + 11 >= sizeof(url))
		return lr_errf(e, EX_USAGE, "redis URL: bad user or password (too long)");
	snprintf(url, sizeof(url), "redis://%.*s@x", (int)len, s);
	if ((rc = rurl_parse(url, &one, e)) == 0) {
		memcpy(u->user, one.user, sizeof(u->user));
		memcpy(u->password, one.password, sizeof(u->password));
	}
	explicit_bzero(url, sizeof(url));
	explicit_bzero(&one, sizeof(one));
	return rc;
}

/* MASTER[/db]: a name as sentinel.conf takes it (no spaces, slashes or
 * control characters), then an optional database number. */
static int
parse_master(const char *s, struct lr_url *u, struct lr_err *e)
{
	size_t len = strcspn(s, "/");
	struct lr_url one;
	char url[32];

	if (len == 0)
		return lr_errf(e, EX_USAGE, "redis URL: no master name (" EXPECTED ")");
	if (len >= sizeof(u->master))
		return lr_errf(e, EX_USAGE, "redis URL: master name is longer than %zu bytes",
		    sizeof(u->master) - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return lr_errf(e, EX_USAGE, "redis URL: master name has a space or a "
			    "control character");
	memcpy(u->master, s, len);
	u->master[len] = '\0';
	if (s[len] == '\0' || s[len + 1] == '\0')
		return 0;
	if (strlen(s + len) > 12)
		return lr_errf(e, EX_USAGE, "redis URL: database after the master name must "
		    "be a number");
	snprintf(url, sizeof(url), "redis://x%s", s + len);
	if (rurl_parse(url, &one, e) != 0)
		return lr_errf(e, EX_USAGE, "redis URL: database after the master name must "
		    "be a number");
	u->db = one.db;
	return 0;
}

int
rurl_parse_sentinel(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *slash = rest + strcspn(rest, "/"), *at = NULL, *p;

	for (p = rest; p < slash; p++)		/* last '@' before the path */
		if (*p == '@')
			at = p;
	if (at && parse_auth(rest, (size_t)(at - rest), u, e) != 0)
		return -1;
	if (*slash != '/')
		return lr_errf(e, EX_USAGE, "redis URL: no master name (" EXPECTED ")");
	for (p = at ? at + 1 : rest; ; p++) {
		size_t len = strcspn(p, ",/");

		if (u->nsentinels == RURL_SENTINELS_MAX)
			return lr_errf(e, EX_USAGE, "redis URL: more than %d sentinels",
			    RURL_SENTINELS_MAX);
		if (parse_sentinel(p, len, u, u->nsentinels, e) != 0)
			return -1;
		u->nsentinels++;
		p += len;
		if (*p == '/')
			break;
	}
	u->port = 0;
	return parse_master(slash + 1, u, e);
}
