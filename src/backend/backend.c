/* SPDX-License-Identifier: BSD-2-Clause */
/* backend.c -- choosing a backend from the URL: the one module that
 * knows every backend (a backend knows ops.h, record.h and lock.h only). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/redis/redis.h"
#ifdef LR_SQL
#include "backend/mysql/mysql.h"
#include "backend/pg/pg.h"
#endif

static int
has_scheme(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);

	return strncmp(url, scheme, n) == 0 && strncmp(url + n, "://", 3) == 0;
}

const char *
backend_kind(const char *url)
{
	static const char *const redis[] = { "redis", "rediss", "unix", "redis+sentinel",
	    "redis+cluster" };

	for (size_t i = 0; i < sizeof(redis) / sizeof(redis[0]); i++)
		if (has_scheme(url, redis[i]))
			return "redis";
	if (has_scheme(url, "postgres") || has_scheme(url, "postgresql"))
		return "postgres";
	if (has_scheme(url, "mysql") || has_scheme(url, "mariadb"))
		return "mysql";
	return NULL;
}

int
backend_init(struct lr_backend *b, const struct lr_backend_cfg *cfg, struct lr_err *e)
{
	const char *kind = backend_kind(cfg->url);

	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	if (kind == NULL)
		return lr_errf(e, EX_USAGE, "--url: not a URL lockrun knows");
	if (strcmp(kind, "redis") == 0)
		return redis_backend_init(b, e);
#ifdef LR_SQL
	if (strcmp(kind, "postgres") == 0)
		return pg_backend_init(b, e);
	return mysql_backend_init(b, e);
#else
	return lr_errf(e, EX_UNAVAILABLE, "%s://: this lockrun was built without the SQL "
	    "backends (SQL=no, or LINK=static)", kind);
#endif
}

int
backend_check_url(const char *url, struct lr_err *e)
{
	const char *kind = backend_kind(url);

	/* not a scheme lockrun knows: the Redis parser's message lists them */
	if (kind == NULL || strcmp(kind, "redis") == 0)
		return redis_check_url(url, e);
#ifdef LR_SQL
	if (strcmp(kind, "mysql") == 0)
		return mysql_check_url(url, e);
#endif
	return 0;	/* PostgreSQL: libpq reads it when it is loaded */
}

int
backend_url_tls(const char *url)
{
	return has_scheme(url, "rediss");
}
