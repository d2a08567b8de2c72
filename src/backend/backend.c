/* SPDX-License-Identifier: BSD-2-Clause */
/* backend.c -- choosing a backend from the URL; the records every backend
 * returns (fields, history, state). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/redis/redis_backend.h"

int
fields_add(struct lr_fields *fl, const char *f, const char *v)
{
	if (v == NULL || *v == '\0')
		return 0;
	if (fl->n == LR_FIELDS_MAX)
		return -1;
	if ((fl->f[fl->n] = strdup(f)) == NULL)
		return -1;
	if ((fl->v[fl->n] = strdup(v)) == NULL) {
		free(fl->f[fl->n]);
		return -1;
	}
	fl->n++;
	return 0;
}

const char *
fields_get(const struct lr_fields *fl, const char *f)
{
	for (size_t i = 0; i < fl->n; i++)
		if (strcmp(fl->f[i], f) == 0)
			return fl->v[i];
	return NULL;
}

void
fields_free(struct lr_fields *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		free(fl->f[i]);
		free(fl->v[i]);
	}
	fl->n = 0;
}

void
hist_free(struct lr_hist *h)
{
	for (size_t i = 0; i < h->n; i++)
		fields_free(&h->e[i].fields);
	free(h->e);
	h->e = NULL;
	h->n = 0;
}

void
state_free(struct lr_state *s)
{
	free(s->value);
	s->value = NULL;
	fields_free(&s->last);
}

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
